//! The ticket page: what the buyer shows at the door. The QR code of the
//! ticket's signed code is drawn on the server as SVG.

use qrcode::render::svg;
use qrcode::QrCode;
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::db::orders as order_rows;
use crate::request::param;
use crate::{auth, db, pages, ticket_code};

#[derive(serde::Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

fn status_words(status: &str, checked_in: bool) -> &'static str {
    match (status, checked_in) {
        ("void", _) => "Void: this ticket was refunded",
        (_, true) => "Checked in",
        ("valid", false) => "Valid",
        _ => "Payment being confirmed",
    }
}

/// A ticket, its showing and its signed code, for the holder of its
/// order's key (the ticket id is "<order id>-<n>").
struct Shown {
    ticket: order_rows::TicketRow,
    showing: db::Showing,
    code: String,
    /// The order's page, for the link back to it.
    order_page: String,
    /// What the order calls its tax, and whether its prices include it.
    tax_name: String,
    tax_inclusive: bool,
}

async fn shown(req: &Request, ctx: &RouteContext<()>) -> Result<Shown, ApiError> {
    let ticket_id = param(ctx, "tid");
    let order_id = ticket_id
        .rsplit_once('-')
        .map(|(o, _)| o)
        .unwrap_or_default();
    let key = req
        .query::<KeyQuery>()
        .ok()
        .and_then(|q| q.key)
        .unwrap_or_default();
    if order_id.is_empty() || !auth::order_key_ok(&ctx.env, order_id, &key)? {
        return Err(ApiError::not_found("ticket"));
    }
    let db = db::database(&ctx.env)?;
    let ticket = order_rows::tickets_of(&db, order_id)
        .await?
        .into_iter()
        .find(|t| t.id == ticket_id)
        .ok_or_else(|| ApiError::not_found("ticket"))?;
    let order = order_rows::get_order(&db, order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("ticket"))?;
    let showing = db::get_showing(&db, &order.showing_id)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let code = ticket_code::sign(
        &auth::signing_keys(&ctx.env)?,
        &ticket_code::TicketRef {
            showing_id: order.showing_id.clone(),
            ticket_id: ticket.id.clone(),
            seat: ticket.seat.clone(),
        },
    );
    Ok(Shown {
        ticket,
        showing,
        code,
        order_page: format!("/orders/{order_id}?key={key}"),
        tax_name: order.tax_name,
        tax_inclusive: order.tax_inclusive,
    })
}

fn qr_svg(code: &str) -> Result<String, ApiError> {
    Ok(QrCode::new(code.as_bytes())
        .map_err(|e| ApiError::internal(format!("QR code: {e}")))?
        .render::<svg::Color>()
        .min_dimensions(240, 240)
        .quiet_zone(true)
        .build())
}

/// `GET /tickets/{ticket_id}/qr.svg?key=…`: the QR code alone.
pub async fn qr(req: Request, ctx: RouteContext<()>) -> Handled {
    let shown = shown(&req, &ctx).await?;
    // Only a paid ticket has a code to scan: a refunded one's pages say
    // VOID instead, and one whose payment is being confirmed says so.
    if shown.ticket.status != "valid" {
        return Err(ApiError::not_found("ticket"));
    }
    let resp = Response::ok(qr_svg(&shown.code)?)?;
    resp.headers().set("content-type", "image/svg+xml")?;
    resp.headers().set("cache-control", "private, no-store")?;
    Ok(resp)
}

/// `GET /tickets/{ticket_id}?key=<the order link's key>`.
pub async fn page(req: Request, ctx: RouteContext<()>) -> Handled {
    let Shown {
        ticket,
        showing,
        code,
        order_page,
        tax_name,
        tax_inclusive,
    } = shown(&req, &ctx).await?;
    let escape = |text: &str| html_escape::encode_text(text).to_string();
    let attr = |text: &str| html_escape::encode_double_quoted_attribute(text).to_string();
    let qr = match ticket.status.as_str() {
        "void" if ticket.moved_to_seat.is_some() => "<p class=\"void-mark\">MOVED</p>".to_string(),
        "void" => "<p class=\"void-mark\">VOID</p>".to_string(),
        "valid" => format!(
            "<figure role=\"img\" aria-label=\"QR code of the ticket for {}\">{}</figure>",
            attr(&mail::compose::ticket_for(&ticket.seat)),
            qr_svg(&code)?
        ),
        // Its code comes once the payment is confirmed (moments, as a rule).
        _ => "<p>The QR code appears here once the payment is confirmed: reload this page in a minute.</p>"
            .to_string(),
    };
    // The number door staff type when the QR code will not scan.
    let short = ticket_code::short_code(&ticket.id).unwrap_or_else(|| ticket.id.clone());
    // The cinema's own clock, with its zone's abbreviation.
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let starts = venue.local_time(showing.starts_at_ms);
    let status = match &ticket.moved_to_seat {
        // Staff moved it: the buyer was mailed the new one.
        Some(seat) => escape(&format!(
            "Moved to seat {seat}: this ticket no longer admits; use the new one"
        )),
        None => status_words(&ticket.status, ticket.checked_in_at_ms.is_some()).to_string(),
    };
    // "Child · $8.00", when the ticket was sold at a price of its own, with
    // its tax where it has some ("£8.00 including £1.33 VAT").
    let tax = ticket
        .price_tax
        .map(|t| t as u64)
        .filter(|&t| t > 0)
        .map(|amount| mail::compose::TaxView {
            name: &tax_name,
            inclusive: tax_inclusive,
            amount,
        });
    let price = match (&ticket.price_name, ticket.price_amount) {
        (Some(name), Some(amount)) => format!(
            " · {}",
            escape(&format!(
                "{name} {}",
                mail::compose::with_tax(amount as u64, &showing.price.currency, tax)
            ))
        ),
        _ => String::new(),
    };
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Ticket: {title}, {place}</title><link rel=\"stylesheet\" href=\"/app.css\"></head>\
         <body><header class=\"site\">{name}{address}</header>\
         <main><h1>{title}</h1><p>{starts}</p><p><strong>{place}</strong>{price}</p>\
         <p role=\"status\">{status}</p>{qr}\
         <p>Ticket number <strong class=\"short-code\">{short}</strong><br>\
         <small>If the QR code will not scan, door staff can type this number.</small></p>\
         <p><a href=\"{order_page}\">Your order and receipt</a></p>\
         <p class=\"muted\"><small>Ticket {id}</small></p></main></body></html>",
        title = escape(&showing.title),
        place = escape(&mail::compose::place(&ticket.seat)),
        short = escape(&short),
        order_page = attr(&order_page),
        name = pages::NAME_MARKER,
        address = pages::ADDRESS_MARKER,
        starts = escape(&starts),
        id = escape(&ticket.id),
    );
    let resp = Response::from_html(pages::fill(&html, &venue))?;
    pages::set_page_policy(&ctx.env, &resp)?;
    Ok(resp)
}
