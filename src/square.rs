//! The Worker's Square client: the calls of `shared/square.md` over
//! `fetch`, each with a timeout, each answer sorted into what a caller can
//! act on. It decides nothing; the checkout machine does.

use std::time::Duration;

use futures_util::future::{select, Either};
use serde_json::Value;
use worker::{AbortController, Delay, Env, Fetch, Headers, Method, Request, RequestInit};

/// The API version this client speaks; sent on every call.
pub(crate) const SQUARE_VERSION: &str = "2025-08-20";
/// Longest wait for the answer to a call that moves money (CreatePayment,
/// RefundPayment). Square usually answers in well under a second, but a
/// card network can take much longer, and giving up early only turns a
/// good answer into an unknown one to be found out later; Square's own
/// examples wait 30 seconds.
const MONEY_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait for any other call (reads, capture, cancel).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest answer body read; Square's are a few kilobytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

pub use desk::square::SquareReply as Reply;
use desk::square::{path_segment, sort, SquareCall};

/// How long a Worker instance trusts the location's currency it read.
const LOCATION_CACHE_MS: u64 = 10 * 60 * 1000;

/// What the pages and the editor need of the Square location.
#[derive(Clone, Debug)]
pub struct Location {
    /// Every price must be in it: Square refuses a payment in another.
    pub currency: String,
    /// ISO 3166, for the wallets' payment sheet.
    pub country: String,
}

/// After Square could not be asked, how long a Worker instance answers
/// from that failure instead of asking again: the checkout page asks on
/// every payment form, and a flood of them must not become a flood of
/// calls to Square.
const LOCATION_RETRY_MS: u64 = 30 * 1000;

thread_local! {
    /// (location id, the location, when read).
    static LOCATION: std::cell::RefCell<Option<(String, Location, u64)>> =
        const { std::cell::RefCell::new(None) };
    /// When asking Square for the location last failed, and why.
    static LOCATION_FAILED: std::cell::RefCell<Option<(u64, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// The currency of the Square location payments are taken at.
pub async fn location_currency(env: &Env) -> Result<String, crate::api_error::ApiError> {
    Ok(location(env).await?.currency)
}

/// The Square location payments are taken at (`SQUARE_LOCATION_ID`), read
/// from Square and kept for ten minutes.
pub async fn location(env: &Env) -> Result<Location, crate::api_error::ApiError> {
    use crate::api_error::ApiError;
    use desk::Code;
    let location_id = env
        .var("SQUARE_LOCATION_ID")
        .map(|v| v.to_string())
        .map_err(|_| ApiError::internal("SQUARE_LOCATION_ID is not configured"))?;
    let now = worker::Date::now().as_millis();
    let cached = LOCATION.with(|c| {
        c.borrow().as_ref().and_then(|(id, location, at)| {
            (*id == location_id && now.saturating_sub(*at) < LOCATION_CACHE_MS)
                .then(|| location.clone())
        })
    });
    if let Some(location) = cached {
        return Ok(location);
    }
    let failed = LOCATION_FAILED.with(|f| {
        f.borrow()
            .as_ref()
            .filter(|(at, _)| now.saturating_sub(*at) < LOCATION_RETRY_MS)
            .map(|(_, why)| why.clone())
    });
    if let Some(why) = failed {
        return Err(ApiError::new(Code::SquareUnavailable, why));
    }
    let square = Square::from_env(env).map_err(ApiError::internal)?;
    let answer = match square.get_location(&location_id).await {
        Reply::Ok(body) => {
            let currency = body["location"]["currency"]
                .as_str()
                .ok_or_else(|| ApiError::internal("Square's location has no currency"))?
                .to_string();
            let country = body["location"]["country"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let location = Location { currency, country };
            LOCATION.with(|c| *c.borrow_mut() = Some((location_id, location.clone(), now)));
            Ok(location)
        }
        Reply::Refused { code, detail, .. } => Err(ApiError::new(
            Code::SquareUnavailable,
            format!(
                "Square would not show location {location_id}: {code}: {detail}; \
                 check SQUARE_LOCATION_ID and the access token"
            ),
        )),
        Reply::Unknown(why) => Err(ApiError::new(
            Code::SquareUnavailable,
            format!("Square did not answer ({why}); try again in a moment"),
        )),
    };
    if let Err(e) = &answer {
        LOCATION_FAILED.with(|f| *f.borrow_mut() = Some((now, e.detail.clone())));
    }
    answer
}

#[derive(Clone)]
pub struct Square {
    base_url: String,
    access_token: String,
}

impl Square {
    /// From the settings: `SQUARE_BASE_URL` (var) and
    /// `SQUARE_ACCESS_TOKEN` (secret).
    pub fn from_env(env: &Env) -> Result<Square, String> {
        let var = |name: &str| {
            env.var(name)
                .map(|v| v.to_string())
                .or_else(|_| env.secret(name).map(|v| v.to_string()))
                .map_err(|_| format!("{name} is not configured"))
        };
        Ok(Square {
            base_url: var("SQUARE_BASE_URL")?.trim_end_matches('/').to_string(),
            access_token: var("SQUARE_ACCESS_TOKEN")?,
        })
    }

    pub async fn refund_payment(&self, body: &Value) -> Reply {
        self.call(Method::Post, "/v2/refunds", Some(body)).await
    }

    pub async fn get_location(&self, location_id: &str) -> Reply {
        let path = format!("/v2/locations/{}", path_segment(location_id));
        self.call(Method::Get, &path, None).await
    }

    pub async fn get_payment(&self, payment_id: &str) -> Reply {
        let path = format!("/v2/payments/{}", path_segment(payment_id));
        self.call(Method::Get, &path, None).await
    }

    pub async fn cancel_payment(&self, payment_id: &str) -> Reply {
        let path = format!("/v2/payments/{}/cancel", path_segment(payment_id));
        self.call(Method::Post, &path, Some(&serde_json::json!({})))
            .await
    }

    /// ListPayments: one page of the location's payments created in
    /// [`begin`, `end`) (RFC 3339), oldest first.
    pub async fn list_payments(
        &self,
        location_id: &str,
        begin: &str,
        end: &str,
        cursor: Option<&str>,
    ) -> Reply {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query
            .append_pair("location_id", location_id)
            .append_pair("begin_time", begin)
            .append_pair("end_time", end)
            .append_pair("sort_order", "ASC");
        if let Some(cursor) = cursor {
            query.append_pair("cursor", cursor);
        }
        let path = format!("/v2/payments?{}", query.finish());
        self.call(Method::Get, &path, None).await
    }

    /// RegisterDomain: Square asks Apple to verify `domain` for Apple Pay
    /// on the web, fetching its domain association file.
    /// <https://developer.squareup.com/reference/square/apple-pay-api/register-domain>
    pub async fn register_apple_pay_domain(&self, domain: &str) -> Reply {
        let body = serde_json::json!({ "domain_name": domain });
        self.call(Method::Post, "/v2/apple-pay/domains", Some(&body))
            .await
    }

    pub async fn get_refund(&self, refund_id: &str) -> Reply {
        let path = format!("/v2/refunds/{}", path_segment(refund_id));
        self.call(Method::Get, &path, None).await
    }

    /// Sends a request the desk built for a checkout step.
    pub async fn send(&self, call: &SquareCall) -> Reply {
        let method = match call.method {
            desk::square::Method::Get => Method::Get,
            desk::square::Method::Post => Method::Post,
            desk::square::Method::Put => Method::Put,
        };
        self.call(method, &call.path, call.body.as_ref()).await
    }

    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Reply {
        let moves_money = method == Method::Post && matches!(path, "/v2/payments" | "/v2/refunds");
        let request = match self.request(method, path, body) {
            Ok(request) => request,
            Err(e) => return Reply::Unknown(format!("could not build the request: {e}")),
        };
        let controller = AbortController::default();
        let signal = controller.signal();
        let fetch = Fetch::Request(request);
        let sent = Box::pin(fetch.send_with_signal(&signal));
        let limit = if moves_money {
            MONEY_CALL_TIMEOUT
        } else {
            CALL_TIMEOUT
        };
        let timeout = Box::pin(Delay::from(limit));
        let mut resp = match select(sent, timeout).await {
            Either::Left((Ok(resp), _)) => resp,
            Either::Left((Err(e), _)) => return Reply::Unknown(format!("no answer: {e}")),
            Either::Right(_) => {
                controller.abort();
                return Reply::Unknown(format!("no answer within {limit:?}"));
            }
        };
        let status = resp.status_code();
        let bytes = match resp.bytes().await {
            Ok(bytes) if bytes.len() <= MAX_ANSWER_BYTES => bytes,
            Ok(_) => return Reply::Unknown("answer too large".into()),
            Err(e) => return Reply::Unknown(format!("answer cut short: {e}")),
        };
        let reply = sort(status, &bytes);
        if moves_money && status == 404 {
            // Nothing to find on these paths: the base URL or the token is
            // for the other environment (sandbox against production).
            worker::console_error!(
                "Square answered 404 to POST {path}: check that SQUARE_BASE_URL and \
                 SQUARE_ACCESS_TOKEN are for the same environment (sandbox or production)"
            );
        }
        reply
    }

    fn request(&self, method: Method, path: &str, body: Option<&Value>) -> worker::Result<Request> {
        let headers = Headers::new();
        headers.set("authorization", &format!("Bearer {}", self.access_token))?;
        headers.set("square-version", SQUARE_VERSION)?;
        headers.set("content-type", "application/json")?;
        headers.set("accept", "application/json")?;
        let mut init = RequestInit::new();
        init.with_method(method).with_headers(headers);
        if let Some(body) = body {
            init.with_body(Some(body.to_string().into()));
        }
        Request::new_with_init(&format!("{}{path}", self.base_url), &init)
    }
}
