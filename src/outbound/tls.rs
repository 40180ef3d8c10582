//! The one TLS client configuration of every outbound connection: the
//! platform's roots plus the operator's extra CAs, parsed once per process.
//!
//! reqwest builds a new certificate verifier (reading and parsing every
//! root of the system's bundle) for each client it builds, and Confer
//! builds several: the two outbound clients, the vendors' client of each
//! worker thread, the integrations' TLS. Each copy of the parsed roots
//! stays for the life of the process, and each thread paid for the parse
//! on its first vendor call. Every client now takes a configuration made
//! here, whose verifier (and so its roots) is shared.

use std::sync::{Arc, Mutex, PoisonError};

use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// The verifier built last and the extra CAs it was built with. One slot:
/// a server has one set of extra CAs, so it is built once; a process that
/// asks for another (tests) replaces it.
#[derive(Default)]
struct VerifierSlot {
    last: Mutex<Option<BuiltVerifier>>,
}

/// A verifier and the extra CAs (PEM) it was built with.
type BuiltVerifier = (Option<Vec<u8>>, Arc<dyn ServerCertVerifier>);

impl VerifierSlot {
    /// The verifier of `extra_ca_pem`: the one in the slot if it was built
    /// for the same CAs, else a new one that takes its place.
    fn get(&self, extra_ca_pem: Option<&[u8]>) -> anyhow::Result<Arc<dyn ServerCertVerifier>> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((pem, verifier)) = last.as_ref()
            && pem.as_deref() == extra_ca_pem
        {
            return Ok(Arc::clone(verifier));
        }
        let built: Arc<dyn ServerCertVerifier> =
            Arc::new(rustls_platform_verifier::Verifier::new_with_extra_roots(
                extra_roots(extra_ca_pem)?,
                provider(),
            )?);
        *last = Some((extra_ca_pem.map(<[u8]>::to_vec), Arc::clone(&built)));
        Ok(built)
    }
}

/// The process's verifier.
static SHARED: std::sync::LazyLock<VerifierSlot> = std::sync::LazyLock::new(VerifierSlot::default);

/// The crypto provider of every outbound TLS connection.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The certificates of `pem`, refused when it holds none.
fn extra_roots(pem: Option<&[u8]>) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let Some(pem) = pem else {
        return Ok(Vec::new());
    };
    let certificates = CertificateDer::pem_slice_iter(pem).collect::<Result<Vec<_>, _>>()?;
    anyhow::ensure!(
        !certificates.is_empty(),
        "no certificate in the extra CA file"
    );
    Ok(certificates)
}

/// The shared verifier trusting the platform's roots and `extra_ca_pem`'s
/// (verification is never turned off); built on the first call for those
/// extra CAs.
pub fn verifier(extra_ca_pem: Option<&[u8]>) -> anyhow::Result<Arc<dyn ServerCertVerifier>> {
    SHARED.get(extra_ca_pem)
}

/// A client configuration on the shared verifier, offering HTTP/2 and
/// HTTP/1.1 by ALPN (what reqwest offers when it builds its own).
pub fn client_config(extra_ca_pem: Option<&[u8]>) -> anyhow::Result<rustls::ClientConfig> {
    let mut config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(verifier(extra_ca_pem)?)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed CA certificate, PEM (any parsable certificate will do).
    fn ca_pem(name: &str) -> Vec<u8> {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec![name.to_owned()]).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.self_signed(&key).unwrap().pem().into_bytes()
    }

    #[test]
    fn one_verifier_serves_every_client_of_the_same_cas() {
        // A slot of its own: the process's is shared with other tests.
        let slot = VerifierSlot::default();
        let pem = ca_pem("one.example");
        let first = slot.get(Some(&pem)).unwrap();
        let second = slot.get(Some(&pem)).unwrap();
        assert!(Arc::ptr_eq(&first, &second), "the roots are parsed once");
        // The slot holds one set: another replaces it, and is shared in turn.
        let other = ca_pem("two.example");
        let third = slot.get(Some(&other)).unwrap();
        assert!(!Arc::ptr_eq(&first, &third));
        assert!(Arc::ptr_eq(&third, &slot.get(Some(&other)).unwrap()));
        assert!(Arc::ptr_eq(
            &slot.get(None).unwrap(),
            &slot.get(None).unwrap()
        ));
        let config = client_config(Some(&other)).unwrap();
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
    }

    #[test]
    fn a_file_without_a_certificate_is_refused() {
        let error = VerifierSlot::default()
            .get(Some(b"not a certificate"))
            .err()
            .unwrap();
        assert!(error.to_string().contains("no certificate"), "{error}");
    }
}
