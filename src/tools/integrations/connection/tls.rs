//! The TLS of integration connections: the platform's roots plus the
//! operator's extra CAs (`verify-ca`, `verify-full`; the process's one
//! verifier, `outbound::tls`), or an encrypted channel whose certificate
//! chain is not checked (`require`, as libpq means it).

use std::sync::Arc;

/// The TLS settings of every integration connection: the platform's roots
/// plus the operator's extra CAs.
#[derive(Clone)]
pub struct TlsSettings {
    pub(super) verified: Arc<rustls::ClientConfig>,
    pub(super) unverified: Arc<rustls::ClientConfig>,
}

impl TlsSettings {
    /// Builds both configurations; `extra_ca_pem` adds trusted roots.
    pub fn new(extra_ca_pem: Option<&[u8]>) -> anyhow::Result<Self> {
        let provider = crate::outbound::tls::provider();
        let verifier = crate::outbound::tls::verifier(extra_ca_pem)?;
        let verified = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        let unverified = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(EncryptOnly(provider)))
            .with_no_client_auth();
        Ok(Self {
            verified: Arc::new(verified),
            unverified: Arc::new(unverified),
        })
    }
}

/// `sslmode=require`: the channel is encrypted and the server's signature
/// over the handshake checked, but its certificate chain is not (libpq's
/// meaning of `require`; `verify-full` checks it).
#[derive(Debug)]
struct EncryptOnly(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
