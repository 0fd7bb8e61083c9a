//! A ticket code as a QR code in a PNG image: most mail clients do not show
//! SVG, and every one shows PNG.

use qrcode::{Color, EcLevel, QrCode};

use crate::MailError;

/// Pixels per module: a ~150-character code is QR version 7 or 8 (45–49
/// modules), so the image is about 330 px square with its quiet zone.
const MODULE_PX: usize = 6;
/// The blank border a scanner needs, in modules (the standard's four).
const QUIET_MODULES: usize = 4;

/// The PNG bytes of `text`'s QR code, black on white, medium error
/// correction (survives a scuffed phone screen).
pub fn png(text: &str) -> Result<Vec<u8>, MailError> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
        .map_err(|e| MailError::QrCode(e.to_string()))?;
    let modules = code.width();
    let colors = code.to_colors();
    let side = (modules + 2 * QUIET_MODULES) * MODULE_PX;
    let mut pixels = vec![255u8; side * side];
    for (i, color) in colors.iter().enumerate() {
        if *color != Color::Dark {
            continue;
        }
        let (mx, my) = (i % modules + QUIET_MODULES, i / modules + QUIET_MODULES);
        for y in my * MODULE_PX..(my + 1) * MODULE_PX {
            pixels[y * side + mx * MODULE_PX..y * side + (mx + 1) * MODULE_PX].fill(0);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, side as u32, side as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let image = |e: png::EncodingError| MailError::Image(e.to_string());
    let mut writer = encoder.write_header().map_err(image)?;
    writer.write_image_data(&pixels).map_err(image)?;
    writer.finish().map_err(image)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_decodes_back_to_the_code() {
        let text = "v1.t1.0123456789abcdef.0123456789abcdef0123-1.QjY.AAAAAAAAAAAAAAAAAAAAAA";
        let bytes = png(text).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let (w, h) = (info.width as usize, info.height as usize);
        let mut image = rqrr::PreparedImage::prepare_from_greyscale(w, h, |x, y| buf[y * w + x]);
        let grids = image.detect_grids();
        assert_eq!(grids.len(), 1);
        assert_eq!(grids[0].decode().unwrap().1, text);
    }
}
