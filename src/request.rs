//! Reading a request, as every route does: its body (bounded, whatever
//! its transfer encoding), that body as JSON, and the parameters of its
//! path. Each refusal is an [`ApiError`] body.

use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use worker::{Request, RouteContext};

use crate::api_error::ApiError;

/// Request bodies larger than this are refused before parsing: nothing the
/// API accepts comes close (the largest is a 20,000-seat layout).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// A named parameter of the path (`:sid`, `:hold`, …).
pub fn param<'a>(ctx: &'a RouteContext<()>, name: &str) -> &'a str {
    // The router only calls a handler when every named parameter matched.
    ctx.param(name).map(String::as_str).unwrap_or_default()
}

/// Showing ids are 16 hex characters; anything else cannot name a showing,
/// and is refused before it can create an object.
pub fn showing_id(ctx: &RouteContext<()>) -> Result<&str, ApiError> {
    let sid = param(ctx, "sid");
    let valid = sid.len() == 16 && sid.bytes().all(|b| b.is_ascii_hexdigit());
    if valid {
        Ok(sid)
    } else {
        Err(ApiError::not_found("showing"))
    }
}

/// Reads a body of at most [`MAX_BODY_BYTES`], refusing a larger one
/// whether or not it declared its length.
pub async fn read_body(req: &mut Request) -> Result<Vec<u8>, ApiError> {
    let declared = req
        .headers()
        .get("content-length")?
        .and_then(|v| v.parse::<usize>().ok());
    match declared {
        Some(n) if n > MAX_BODY_BYTES => return Err(ApiError::body_too_large(MAX_BODY_BYTES)),
        // A declared length is the body's framing: the runtime delivers
        // exactly that many bytes, so it is read in one go.
        Some(_) => return Ok(req.bytes().await?),
        None => {}
    }
    // Read a chunk at a time and stop past the limit: a chunked body
    // declares no length, and must not be read whole first.
    let mut bytes = Vec::new();
    let mut stream = match req.stream() {
        Ok(stream) => stream,
        // No body at all.
        Err(_) => return Ok(bytes),
    };
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ApiError::body_too_large(MAX_BODY_BYTES));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad_json(e.to_string()))
}
