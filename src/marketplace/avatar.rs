//! Avatars (`marketplace-channels.md` §3): an upload's type is read from its
//! bytes alone, it is decoded under limits, turned by its EXIF orientation,
//! center-cropped and re-encoded as a 256×256 PNG, so nothing of the
//! uploaded file (metadata, a second frame, a script) survives.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};
use sha2::{Digest, Sha256};

/// The side of every stored avatar.
pub const SIDE: u32 = 256;
/// The largest side an upload may have.
const MAX_SIDE: u32 = 8_192;
/// The most the decoder may allocate.
const MAX_ALLOC: u64 = 128 * 1024 * 1024;

/// A stored avatar: its PNG bytes and the 12 hex digits of their SHA-256
/// (the `?v=` of its URL and its `ETag`).
#[derive(Clone, Debug, PartialEq)]
pub struct Avatar {
    pub png: Vec<u8>,
    pub tag: String,
}

impl Avatar {
    /// The avatar of stored PNG bytes.
    pub fn of(png: Vec<u8>) -> Self {
        let digest = Sha256::digest(&png);
        Self {
            tag: hex::encode(&digest[..6]),
            png,
        }
    }
}

/// Why an upload is refused (422 on `file`).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AvatarError {
    #[error("not a PNG, JPEG or WebP image")]
    NotAnImage,
    #[error("too large: at most {MAX_SIDE} pixels a side")]
    TooLarge,
    #[error("the image could not be decoded: {0}")]
    Corrupt(String),
}

/// The avatar made of an upload. CPU-bound: call it off the async workers.
pub fn normalize(upload: &[u8]) -> Result<Avatar, AvatarError> {
    let mut reader = ImageReader::new(Cursor::new(upload))
        .with_guessed_format()
        .map_err(|_| AvatarError::NotAnImage)?;
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP) => {}
        _ => return Err(AvatarError::NotAnImage),
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(decoding)?;
    let orientation = decoder.orientation().map_err(decoding)?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(decoding)?;
    image.apply_orientation(orientation);
    let (width, height) = (image.width(), image.height());
    let side = width.min(height);
    if side == 0 {
        return Err(AvatarError::Corrupt("an empty image".into()));
    }
    let square = image.crop_imm((width - side) / 2, (height - side) / 2, side, side);
    let resized = square.resize_exact(SIDE, SIDE, FilterType::Lanczos3);
    // RGBA8: one pixel format whatever came in; the PNG encoder writes no
    // metadata chunk of its own.
    let mut png = Vec::new();
    DynamicImage::ImageRgba8(resized.to_rgba8())
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .map_err(|e| AvatarError::Corrupt(e.to_string()))?;
    Ok(Avatar::of(png))
}

fn decoding(error: image::ImageError) -> AvatarError {
    match error {
        image::ImageError::Limits(_) => AvatarError::TooLarge,
        image::ImageError::Unsupported(_) => AvatarError::NotAnImage,
        other => AvatarError::Corrupt(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgba};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = ImageBuffer::from_fn(width, height, |x, _| {
            if x < width / 2 {
                Rgba([255u8, 0, 0, 255])
            } else {
                Rgba([0, 0, 255, 255])
            }
        });
        let mut out = Vec::new();
        DynamicImage::ImageRgba8(image)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .expect("encodes");
        out
    }

    #[test]
    fn an_upload_becomes_a_square_png_of_256() {
        let avatar = normalize(&png(600, 300)).expect("a PNG");
        let decoded = image::load_from_memory(&avatar.png).expect("decodes");
        assert_eq!((decoded.width(), decoded.height()), (SIDE, SIDE));
        assert_eq!(avatar.tag.len(), 12);
        // Center-cropped: the left edge is red, the right edge blue.
        let rgba = decoded.to_rgba8();
        assert_eq!(rgba.get_pixel(0, 128).0[0], 255);
        assert_eq!(rgba.get_pixel(255, 128).0[2], 255);
    }

    #[test]
    fn other_bytes_and_broken_images_are_refused() {
        assert_eq!(
            normalize(b"<html><script>alert(1)</script></html>"),
            Err(AvatarError::NotAnImage)
        );
        assert_eq!(
            normalize(b"GIF89a\x01\x00\x01\x00"),
            Err(AvatarError::NotAnImage)
        );
        let whole = png(64, 64);
        assert!(matches!(
            normalize(&whole[..whole.len() / 2]),
            Err(AvatarError::Corrupt(_))
        ));
    }
}
