//! Archives built for the code agents' tests: tar, tar.gz, and a tar
//! whose entry name is written by hand.

/// A tar of `(name, bytes)` files, gzipped.
pub(crate) fn tar_gz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &tar(files)).unwrap();
    gz.finish().unwrap()
}

/// A plain tar holding one file named `name` as written (`tar::Builder`
/// refuses `..`, so the header is filled in by hand).
pub(crate) fn raw_tar(name: &str) -> Vec<u8> {
    let mut header = tar::Header::new_old();
    header.set_size(1);
    header.set_mode(0o644);
    header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    header.set_cksum();
    let mut bytes = header.as_bytes().to_vec();
    bytes.extend_from_slice(&[b'x'; 512]);
    bytes.extend_from_slice(&[0; 1024]);
    bytes
}

/// A tar of `(name, bytes)` files.
pub(crate) fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        builder.append_data(&mut header, name, *bytes).unwrap();
    }
    builder.into_inner().unwrap()
}
