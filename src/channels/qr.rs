//! WhatsApp's `wa.me` link as a QR code (`marketplace-channels.md` §10):
//! level M, a quiet zone of 4 modules, as SVG or as a PNG of a given side.

use std::io::Cursor;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use qrcode::{EcLevel, QrCode};

/// The smallest and largest PNG side, and the default.
pub const MIN_SIZE: u32 = 128;
pub const MAX_SIZE: u32 = 1_024;
pub const DEFAULT_SIZE: u32 = 512;
/// The longest prefilled `text`.
pub const MAX_TEXT: usize = 500;

/// `https://wa.me/{number}`, with `?text=` when given.
pub fn link(number: &str, text: Option<&str>) -> String {
    match text.filter(|t| !t.is_empty()) {
        Some(text) => format!(
            "https://wa.me/{number}?text={}",
            utf8_percent_encode(text, NON_ALPHANUMERIC)
        ),
        None => format!("https://wa.me/{number}"),
    }
}

fn code(link: &str) -> Result<QrCode, qrcode::types::QrError> {
    QrCode::with_error_correction_level(link.as_bytes(), EcLevel::M)
}

/// The code as an SVG document.
pub fn svg(link: &str) -> Result<String, String> {
    let code = code(link).map_err(|e| e.to_string())?;
    Ok(code
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(256, 256)
        .quiet_zone(true)
        .build())
}

/// The code as a PNG about `size` pixels a side (whole modules: the side
/// is the largest multiple of the module count that fits, at least the
/// code's own).
pub fn png(link: &str, size: u32) -> Result<Vec<u8>, String> {
    let code = code(link).map_err(|e| e.to_string())?;
    let image = code
        .render::<image::Luma<u8>>()
        .quiet_zone(true)
        .max_dimensions(size, size)
        .build();
    let mut out = Vec::new();
    image::DynamicImage::ImageLuma8(image)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_images() {
        assert_eq!(link("15550100200", None), "https://wa.me/15550100200");
        assert_eq!(
            link("15550100200", Some("Hi there & more")),
            "https://wa.me/15550100200?text=Hi%20there%20%26%20more"
        );
        let svg = svg("https://wa.me/15550100200").expect("renders");
        assert!(svg.starts_with("<?xml") && svg.contains("<svg"));
        let png = png("https://wa.me/15550100200", 512).expect("renders");
        let decoded = image::load_from_memory(&png).expect("a PNG");
        assert!(decoded.width() <= 512 && decoded.width() >= 128);
    }
}
