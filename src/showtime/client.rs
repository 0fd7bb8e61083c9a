//! How the Worker reaches a showing's object: an internal HTTP request to
//! the stub named by the showing id.

use serde::Serialize;
use worker::{Env, Headers, Method, Request, RequestInit, Response, Result, Stub};

/// The stub for a showing's object. The same id always reaches the same
/// object, which is what makes it the single place seats are decided.
pub fn stub(env: &Env, showing_id: &str) -> Result<Stub> {
    env.durable_object("SHOWTIME")?
        .id_from_name(showing_id)?
        .get_stub()
}

/// Sends `method path` with an optional JSON body to the showing's object.
/// Stub requests need an absolute URL; the host is never resolved.
pub async fn call<B: Serialize>(
    env: &Env,
    showing_id: &str,
    method: Method,
    path: &str,
    body: Option<&B>,
) -> Result<Response> {
    let mut init = RequestInit::new();
    init.with_method(method);
    if let Some(body) = body {
        let headers = Headers::new();
        headers.set("content-type", "application/json")?;
        init.with_headers(headers)
            .with_body(Some(serde_json::to_string(body)?.into()));
    }
    let req = Request::new_with_init(&format!("https://showtime.internal{path}"), &init)?;
    stub(env, showing_id)?.fetch_with_request(req).await
}

/// Hands a browser's WebSocket upgrade for `path` to the showing's object,
/// which keeps the socket.
pub async fn upgrade(env: &Env, showing_id: &str, path: &str, req: &Request) -> Result<Response> {
    let mut init = RequestInit::new();
    init.with_method(Method::Get)
        .with_headers(req.headers().clone());
    let forwarded = Request::new_with_init(&format!("https://showtime.internal{path}"), &init)?;
    stub(env, showing_id)?.fetch_with_request(forwarded).await
}
