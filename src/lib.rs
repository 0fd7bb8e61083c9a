//! The Showtime Worker: seat-by-seat ticketing on Cloudflare Workers.
//!
//! Module map:
//! - [`routes`]: the public HTTP API, one function per route; parses and
//!   validates input, then hands seat questions to the showing's object.
//!   What routes share lies below them: [`request`] (a bounded body, JSON,
//!   path parameters), [`buyer`] (the buyer's session, their hold, their
//!   address and name), [`order_answer`] (what a buyer is told of an
//!   order), [`showing_edit`] (saving a showing's edits), [`network`] (the
//!   client's network), [`clock`].
//! - [`sweep`]: the cron sweep; [`webhook_inbox`]: Square's stored
//!   webhooks, handled after their answer and again by the sweep.
//! - [`showtime`]: the `Showtime` Durable Object, one per showing, which owns
//!   that showing's seats and serialises every decision about them.
//! - [`showing`]: what a showing is (title, time, price, layout) and how a
//!   layout becomes the list of seat names; pure, no I/O.
//! - [`db`]: every D1 query. No other module writes SQL for D1.
//! - [`auth`]: staff credentials; [`admin_session`]: the staff browser
//!   session and its CSRF token; [`session`]: the buyer's signed cookie.
//! - [`api_error`]: the error bodies the API answers with.
//! - [`ids`]: random identifiers.
//! - [`square`]: the Square API client (payments, refunds), with timeouts;
//!   [`webhook`]: checking the signature of Square's webhooks.
//! - [`ticket_code`]: the signed code in a ticket's QR code.
//! - [`door_sync`]: a door device's offline scans, checked and judged;
//!   [`door_session`]: a door device's session for one showing.
//! - [`mail`]: sending the mail outbox through the `EMAIL` binding.
//! - [`refunding`]: the shell of the `refunds` machine: loads an order's
//!   refunds from D1, performs what the machine decides, feeds Square's
//!   answers back.

mod admin_session;
mod api_error;
mod auth;
mod buyer;
mod catalog;
mod checklist;
mod clock;
mod code_uses;
mod db;
mod discount_code;
mod door_session;
mod door_sync;
mod ids;
mod keys;
mod mail;
mod network;
mod order_answer;
mod pages;
mod reconciliation;
mod recurrence;
mod refunding;
mod reports;
mod request;
mod routes;
mod sale_code;
mod sales;
mod session;
mod settings;
mod showing;
mod showing_edit;
mod showtime;
mod square;
mod sweep;
mod ticket_code;
mod turnstile;
mod waiting_room;
mod webhook;
mod webhook_inbox;

use worker::{event, Context, Env, Request, Response, Result, ScheduleContext, ScheduledEvent};

pub use showtime::Showtime;

#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> Result<Response> {
    console_error_panic_hook::set_once();
    // Square's webhooks are answered before they are handled, which needs
    // the request's context (its `waitUntil`); the router does not carry it.
    let https = auth::is_https(&req);
    let path = req.path();
    let guarded =
        (path.starts_with("/api/") && path != "/api/health") || path.starts_with("/webhooks/");
    if guarded && !auth::setting_problems(&env).is_empty() {
        // Nothing is decided with unfit secrets: no hold, no payment, no
        // staff session, no webhook (Square sends it again later).
        let refusal = api_error::ApiError::new(
            desk::Code::NotConfigured,
            "this site's settings are incomplete, so it takes no requests; GET /api/health names what to fix",
        );
        return with_security_headers(refusal.into_response()?, https);
    }
    if let Some(secure) = https_redirect(&req) {
        return with_security_headers(Response::redirect_with_status(secure, 301)?, https);
    }
    // Square's webhooks and order-link requests are answered before the
    // work they ask for, which runs in the request's `waitUntil`.
    let post = req.method() == worker::Method::Post;
    let resp = if post && path == "/webhooks/square" {
        routes::square_webhook(req, env, &ctx).await?
    } else if post && path == "/api/orders/lookup" {
        routes::order_lookup(req, env, &ctx).await?
    } else {
        routes::handle(req, env).await?
    };
    with_security_headers(resp, https)
}

/// The HTTPS address of a staff or door page asked for over plain HTTP
/// (`pages::https_location`).
fn https_redirect(req: &Request) -> Option<worker::Url> {
    let url = req.url().ok()?;
    let host = url.host_str()?;
    let location = pages::https_location(url.scheme(), host, url.path(), url.query())?;
    worker::Url::parse(&location).ok()
}

/// Headers on every answer of the Worker: no page of ours inside another
/// site's frame (clickjacking), no guessing of content types, no full
/// address sent to other sites, and HTTPS only once it is used. A
/// WebSocket's switch of protocols is left as it is.
fn with_security_headers(resp: Response, https: bool) -> Result<Response> {
    if resp.status_code() == 101 {
        return Ok(resp);
    }
    // The Worker's own answers take the headers in place. Answers fetched
    // from the assets or an object have headers that cannot be changed:
    // those are copied into new ones.
    if add_security_headers(resp.headers(), https).is_ok() {
        return Ok(resp);
    }
    let headers = worker::Headers::new();
    for (name, value) in resp.headers().entries() {
        headers.append(&name, &value)?;
    }
    add_security_headers(&headers, https)?;
    Ok(resp.with_headers(headers))
}

fn add_security_headers(headers: &worker::Headers, https: bool) -> Result<()> {
    headers.set("x-content-type-options", "nosniff")?;
    headers.set("referrer-policy", "same-origin")?;
    if !headers.has("content-security-policy")? {
        headers.set("content-security-policy", "frame-ancestors 'none'")?;
    }
    if https {
        headers.set("strict-transport-security", "max-age=31536000")?;
    }
    Ok(())
}

/// The cron trigger: the recovery sweep. Each showing's alarm resumes its
/// own unfinished orders; this catches any whose alarm was lost.
#[event(scheduled)]
async fn scheduled(event: ScheduledEvent, env: Env, _ctx: ScheduleContext) {
    let now_ms = worker::Date::now().as_millis();
    match sweep::recovery_sweep(&env, now_ms).await {
        Ok(n) => worker::console_log!(
            "recovery sweep at {}: {n} showings nudged",
            event.schedule()
        ),
        Err(e) => worker::console_error!("recovery sweep failed: {e}"),
    }
}
