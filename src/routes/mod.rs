//! The public HTTP API. Each handler parses and bounds its input, then asks
//! D1 or the showing's object; every refusal is an [`ApiError`] body.
//!
//! This file is the router: it alone names the route files. A route file
//! takes what it shares with another from a module below the routes
//! (`request`, `buyer`, `order_answer`, `showing_edit`, `network`,
//! `clock`, …), never from a route or from here, and nothing outside
//! `routes/` takes anything from here but what `lib.rs` hands the runtime
//! (`tests/architecture.rs` checks both).
//!
//! - [`showings`]: what buyers see and do: showings, seat maps, holds.
//! - [`orders`]: paying for a hold, reading an order, Square's webhooks.
//! - [`refunds`]: refunds asked for here or in Square, applied on completion.
//! - [`changes`]: buyers cancelling within their showing's policy; staff
//!   setting that policy.
//! - [`tickets`]: the ticket page with its QR code.
//! - [`door`]: scanning tickets at the door, behind a door credential.
//! - [`box_office`]: staff selling or giving seats at the desk.
//! - [`moves`]: staff moving a sold ticket to another seat.
//! - [`waitlist`]: a sold-out showing's waiting list and its offers.
//! - [`catalog`]: films and screens, which showings refer to.
//! - [`codes`]: discount codes staff define.
//! - [`discounts`]: a buyer applying a discount code to their hold.
//! - [`admin`]: what cinema staff do, behind the admin token or session.
//! - [`bench`]: the benchmark's floors, off unless `SHOWTIME_BENCH` is "1".

mod admin;
mod bench;
mod box_office;
mod catalog;
mod changes;
mod codes;
mod discounts;
mod door;
mod moves;
mod orders;
mod refunds;
mod showings;
mod tickets;
mod waitlist;
mod webhooks;

pub use orders::order_lookup;
pub use webhooks::square_webhook;

use std::rc::Rc;

use serde_json::json;
use worker::{Env, Request, Response, Result, RouteContext, Router};

use crate::api_error::{ApiError, Handled};
use crate::clock::now_ms;
use crate::db;
use desk::Code;

/// Every route, built once for the isolate: building them took about a
/// tenth of a join's time on the runtime thread when it was done for each
/// request (bench/HISTORY.md).
type Routes = Router<'static, ()>;

thread_local! {
    static ROUTES: Rc<Routes> = Rc::new(all_routes());
}

fn all_routes() -> Routes {
    let routes = page_routes(other_api_routes(bench_routes(admin_routes(buyer_routes(
        Router::new(),
    )))));
    routes.or_else_any_method_async("/*path", |req, ctx| async move {
        if req.method() == worker::Method::Get && !req.path().starts_with("/api/") {
            // Stylesheets and scripts: the static assets in `public/`.
            return ctx.env.assets("ASSETS")?.fetch_request(req).await;
        }
        ApiError::not_found("route").into_response()
    })
}

pub async fn handle(req: Request, env: Env) -> Result<Response> {
    let routes = ROUTES.with(Rc::clone);
    let resp = routes.run_shared(req, env).await?;
    // The router answers a known path with the wrong method in plain text;
    // keep every error in the API's JSON shape.
    if resp.status_code() == 405 {
        return ApiError::new(
            Code::MethodNotAllowed,
            "this path does not take that method",
        )
        .into_response();
    }
    Ok(resp)
}

/// What buyers do with showings and holds (`/api/showings…`).
fn buyer_routes(routes: Routes) -> Routes {
    routes
        .get_async("/api/showings", |_, ctx| respond(showings::list(ctx)))
        .get_async("/api/showings/:sid", |req, ctx| {
            respond(showings::get(req, ctx))
        })
        .post_async("/api/showings/:sid/queue", |req, ctx| {
            respond(showings::join_queue(req, ctx))
        })
        .get_async("/api/showings/:sid/seats", |req, ctx| {
            respond(showings::seats(req, ctx))
        })
        .get_async("/api/showings/:sid/live", |req, ctx| {
            respond(showings::live(req, ctx))
        })
        .post_async("/api/showings/:sid/holds", |req, ctx| {
            respond(showings::create_hold(req, ctx))
        })
        .get_async("/api/showings/:sid/holds/:hold", |req, ctx| {
            respond(showings::get_hold(req, ctx))
        })
        .delete_async("/api/showings/:sid/holds/:hold", |req, ctx| {
            respond(showings::release_hold(req, ctx))
        })
        .post_async("/api/showings/:sid/holds/:hold/code", |req, ctx| {
            respond(discounts::apply(req, ctx))
        })
        .post_async("/api/showings/:sid/holds/:hold/checkout", |req, ctx| {
            respond(orders::checkout(req, ctx))
        })
        .post_async("/api/showings/:sid/waitlist", |req, ctx| {
            respond(waitlist::join(req, ctx))
        })
        .post_async("/api/showings/:sid/offers/:entry/claim", |req, ctx| {
            respond(waitlist::claim(req, ctx))
        })
}

/// What staff do (`/api/admin/…`), behind their credentials.
fn admin_routes(routes: Routes) -> Routes {
    routes
        .post_async("/api/admin/showings/:sid/box-office", |req, ctx| {
            respond(box_office::sell(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/best", |req, ctx| {
            respond(box_office::best(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/sales-curve", |req, ctx| {
            respond(admin::sales_curve(req, ctx))
        })
        .post_async("/api/admin/showings/:sid/reconcile", |req, ctx| {
            respond(admin::reconcile(req, ctx))
        })
        .post_async("/api/admin/showings/:sid/reconcile/handled", |req, ctx| {
            respond(admin::finding_handled(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/reconcile", |req, ctx| {
            respond(admin::reconciliation(req, ctx))
        })
        .post_async("/api/admin/showings/:sid/allocations", |req, ctx| {
            respond(box_office::allocate(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/allocations", |req, ctx| {
            respond(box_office::allocations(req, ctx))
        })
        .post_async(
            "/api/admin/showings/:sid/allocations/:aid/release",
            |req, ctx| respond(box_office::release_allocation(req, ctx)),
        )
        .get_async("/api/admin/reports/sales", |req, ctx| {
            respond(admin::sales_report(req, ctx))
        })
        .get_async("/api/admin/reports/daily", |req, ctx| {
            respond(admin::daily_summary(req, ctx))
        })
        .get_async("/api/admin/reports/distributor", |req, ctx| {
            respond(admin::distributor_return(req, ctx))
        })
        .post_async("/api/admin/codes", |req, ctx| {
            respond(codes::create(req, ctx))
        })
        .get_async("/api/admin/codes", |req, ctx| {
            respond(codes::list(req, ctx))
        })
        .get_async("/api/admin/codes/:code", |req, ctx| {
            respond(codes::get(req, ctx))
        })
        .post_async("/api/admin/codes/:code/pause", |req, ctx| {
            respond(codes::pause(req, ctx))
        })
        .post_async("/api/admin/codes/:code/resume", |req, ctx| {
            respond(codes::resume(req, ctx))
        })
        .post_async("/api/admin/apple-pay/domain", |req, ctx| {
            respond(admin::register_apple_pay_domain(req, ctx))
        })
        .get_async("/api/admin/waiting-room-rate", |req, ctx| {
            respond(admin::waiting_room_rate(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/waitlist", |req, ctx| {
            respond(waitlist::list(req, ctx))
        })
        .post_async("/api/admin/showings/:sid/door-pin", |req, ctx| {
            respond(door::draw_pin(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/door-conflicts", |req, ctx| {
            respond(door::conflicts(req, ctx))
        })
        .post_async("/api/admin/tickets/:tid/move", |req, ctx| {
            respond(moves::move_ticket(req, ctx))
        })
        .post_async("/api/admin/orders/:oid/refund", |req, ctx| {
            respond(refunds::refund_order(req, ctx))
        })
        .post_async("/api/admin/showings", |req, ctx| {
            respond(admin::create_showing(req, ctx))
        })
        .post_async("/api/admin/films", |req, ctx| {
            respond(catalog::create_film(req, ctx))
        })
        .get_async("/api/admin/films", |req, ctx| {
            respond(catalog::list_films(req, ctx))
        })
        .put_async("/api/admin/films/:fid", |req, ctx| {
            respond(catalog::update_film(req, ctx))
        })
        .post_async("/api/admin/screens", |req, ctx| {
            respond(catalog::create_screen(req, ctx))
        })
        .get_async("/api/admin/screens", |req, ctx| {
            respond(catalog::list_screens(req, ctx))
        })
        .put_async("/api/admin/screens/:scid", |req, ctx| {
            respond(catalog::update_screen(req, ctx))
        })
        .post_async("/api/admin/showings/recurring", |req, ctx| {
            respond(admin::create_recurring(req, ctx))
        })
        .get_async("/api/admin/showings", |req, ctx| {
            respond(admin::list_showings(req, ctx))
        })
        .get_async("/api/admin/showings/:sid", |req, ctx| {
            respond(admin::showing(req, ctx))
        })
        .post_async("/api/admin/showings/:sid/cancel", |req, ctx| {
            respond(admin::cancel_showing(req, ctx))
        })
        .put_async("/api/admin/showings/:sid/policy", |req, ctx| {
            respond(changes::set_policy(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/policy", |req, ctx| {
            respond(changes::get_policy(req, ctx))
        })
        .put_async("/api/admin/showings/:sid", |req, ctx| {
            respond(admin::update_showing(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/stats", |req, ctx| {
            respond(admin::stats(req, ctx))
        })
        .get_async("/api/admin/showings/:sid/tickets.csv", |req, ctx| {
            respond(admin::tickets_csv(req, ctx))
        })
        .post_async("/api/admin/session", |req, ctx| {
            respond(admin::sign_in(req, ctx))
        })
        .get_async("/api/admin/session", |req, ctx| {
            respond(admin::session(req, ctx))
        })
        .delete_async("/api/admin/session", |req, ctx| {
            respond(admin::sign_out(req, ctx))
        })
        .delete_async("/api/admin/sessions", |req, ctx| {
            respond(admin::sign_out_everywhere(req, ctx))
        })
        .get_async("/api/admin/orders", |req, ctx| {
            respond(admin::orders(req, ctx))
        })
        .get_async("/api/admin/orders/:oid", |req, ctx| {
            respond(admin::order(req, ctx))
        })
        .post_async("/api/admin/orders/:oid/resend", |req, ctx| {
            respond(admin::resend_tickets(req, ctx))
        })
        .post_async("/api/admin/orders/:oid/handled", |req, ctx| {
            respond(admin::mark_handled(req, ctx))
        })
        .get_async("/api/admin/attention", |req, ctx| {
            respond(admin::attention(req, ctx))
        })
        .post_async("/api/admin/refunds/:rid/tickets", |req, ctx| {
            respond(refunds::choose_tickets(req, ctx))
        })
}

/// The benchmark's floors (`/api/bench/…`), off unless enabled.
fn bench_routes(routes: Routes) -> Routes {
    routes
        .post_async("/api/bench/showings/:sid/noop", |_, ctx| {
            respond(bench::noop(ctx))
        })
        .post_async("/api/bench/showings/:sid/write", |_, ctx| {
            respond(bench::write(ctx))
        })
        .post_async("/api/bench/showings/:sid/hold-worker", |req, ctx| {
            // A hold's Worker half is the buyers' code, behind the bench's switch.
            respond(async move {
                bench::enabled(&ctx)?;
                showings::bench_hold_worker_half(req, ctx).await
            })
        })
        .post_async("/api/bench/worker", |_, ctx| respond(bench::worker(ctx)))
}

/// The rest of the API: health, orders, the door, the pages' settings.
fn other_api_routes(routes: Routes) -> Routes {
    routes
        .get_async("/api/layouts/:version", |req, ctx| {
            respond(showings::layout(req, ctx))
        })
        .get_async("/api/health", |req, ctx| respond(health(req, ctx)))
        .get_async("/api/orders/:oid", |req, ctx| {
            respond(orders::get(req, ctx))
        })
        .post_async("/api/orders/:oid/exchange", |req, ctx| {
            respond(changes::exchange(req, ctx))
        })
        .post_async("/api/orders/:oid/cancel", |req, ctx| {
            respond(changes::cancel(req, ctx))
        })
        .get_async("/api/config", |_, ctx| respond(config(ctx)))
        .get_async("/api/door/showings", |_, ctx| respond(door::showings(ctx)))
        .get_async("/api/door/showings/:sid/manifest", |req, ctx| {
            respond(door::manifest(req, ctx))
        })
        .post_async("/api/door/showings/:sid/find", |req, ctx| {
            respond(door::find(req, ctx))
        })
        .post_async("/api/door/showings/:sid/session", |req, ctx| {
            respond(door::session(req, ctx))
        })
        .post_async("/api/door/checkin", |req, ctx| {
            respond(door::check_in(req, ctx))
        })
        .post_async("/api/door/sync", |req, ctx| respond(door::sync(req, ctx)))
}

/// The web app's pages and the ticket pages.
fn page_routes(routes: Routes) -> Routes {
    routes
        .get_async("/orders/find", |_, ctx| respond(page(ctx, "/find")))
        .get_async("/tickets/:tid", |req, ctx| respond(tickets::page(req, ctx)))
        .get_async("/tickets/:tid/qr.svg", |req, ctx| {
            respond(tickets::qr(req, ctx))
        })
        .get_async("/", |_, ctx| respond(page(ctx, "/")))
        .get_async("/showings/:sid", |_, ctx| respond(page(ctx, "/showing")))
        .get_async("/orders/:oid", |_, ctx| respond(page(ctx, "/order")))
        .get_async("/door", |_, ctx| respond(page(ctx, "/door")))
        .get_async("/admin", |_, ctx| respond(page(ctx, "/admin")))
        .get_async("/admin/showings/new", |_, ctx| {
            respond(page(ctx, "/admin-edit"))
        })
        .get_async("/admin/showings/:sid/edit", |_, ctx| {
            respond(page(ctx, "/admin-edit"))
        })
        .get_async("/admin/reports", |_, ctx| {
            respond(page(ctx, "/admin-reports"))
        })
        .get_async("/admin/showings/:sid", |_, ctx| {
            respond(page(ctx, "/admin-showing"))
        })
}

async fn respond(handled: impl std::future::Future<Output = Handled>) -> Result<Response> {
    handled.await.or_else(ApiError::into_response)
}

/// A page of the web app: a static HTML file from `public/` that fills
/// itself in from the API.
async fn page(ctx: RouteContext<()>, asset: &str) -> Handled {
    let url = format!("https://assets.invalid{asset}");
    let mut resp = ctx.env.assets("ASSETS")?.fetch(url, None).await?;
    if resp.status_code() != 200 {
        return Ok(resp);
    }
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let html = crate::pages::fill(&resp.text().await?, &venue);
    let filled = Response::from_html(html)?;
    // Settings change on a deploy; the page is checked each time.
    filled.headers().set("cache-control", "no-cache")?;
    crate::pages::set_page_policy(&ctx.env, &filled)?;
    Ok(filled)
}

/// What the pages need to know: the Square Web Payments SDK to load, the
/// application it pays for, and the location's country (for the wallets'
/// payment sheet; `null` if Square could not be asked, and the card form
/// alone is offered). Nothing secret.
async fn config(ctx: RouteContext<()>) -> Handled {
    let var = |name: &str| ctx.env.var(name).map(|v| v.to_string()).unwrap_or_default();
    let country = crate::square::location(&ctx.env)
        .await
        .ok()
        .map(|l| l.country)
        .filter(|c| !c.is_empty());
    let windows = crate::settings::window_defaults(&ctx.env);
    Ok(Response::from_json(&json!({
        "cinema_name": var("CINEMA_NAME"),
        "sales_close_minutes": windows.sales_close_after_start_ms / 60_000,
        "door_close_minutes": windows.door_close_after_start_ms / 60_000,
        "square_sdk_url": var("SQUARE_SDK_URL"),
        "square_application_id": var("SQUARE_APPLICATION_ID"),
        "square_location_id": var("SQUARE_LOCATION_ID"),
        "square_country": country,
        "turnstile_site_key": crate::turnstile::site_key(&ctx.env),
        "turnstile_script_url": crate::turnstile::script_url(&ctx.env),
    }))?)
}

/// Answers when the Worker, D1 and the object binding are all reachable.
/// Staff (with admin credentials) also see the Square location's currency
/// and any showing to come priced in another, which could not be paid for.
async fn health(req: Request, ctx: RouteContext<()>) -> Handled {
    // Unfit secrets first: they stop everything else (see lib.rs).
    let problems = crate::auth::setting_problems(&ctx.env);
    if !problems.is_empty() {
        let body = json!({ "ok": false, "settings": problems });
        return Ok(Response::from_json(&body)?.with_status(503));
    }
    let db = db::database(&ctx.env)?;
    let all = db::upcoming_showings(&db, i64::MIN).await?;
    ctx.env.durable_object("SHOWTIME")?;
    let mut body = json!({ "ok": true, "showings": all.len() });
    if crate::auth::require_admin(&req, &ctx.env).await.is_ok() {
        let location = crate::square::location_currency(&ctx.env).await;
        let now = now_ms();
        let other: Vec<String> = match &location {
            Ok(currency) => all
                .iter()
                .filter(|s| s.starts_at_ms >= now && &s.price.currency != currency)
                .map(|s| s.id.clone())
                .collect(),
            Err(_) => Vec::new(),
        };
        body["square"] = match &location {
            Ok(currency) => {
                json!({ "location_currency": currency, "showings_in_another_currency": other })
            }
            Err(e) => json!({ "error": e.code, "detail": e.detail }),
        };
        let facts = crate::checklist::Facts {
            location_currency: location.map_err(|e| format!("{}: {}", e.code, e.detail)),
            showings_in_another_currency: other,
        };
        let read = |name: &str| {
            ctx.env
                .secret(name)
                .map(|s| s.to_string())
                .or_else(|_| ctx.env.var(name).map(|v| v.to_string()))
                .ok()
        };
        body["checklist"] = json!(crate::checklist::checklist(read, &facts));
    }
    Ok(Response::from_json(&body)?)
}
