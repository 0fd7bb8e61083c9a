//! How the Worker reaches a showing's object: one typed method per
//! [`desk::Request`], each answering the reply that request gets. The
//! object's RPC method and the JSON it carries are known here and in the
//! object's `desk` only.

use desk::protocol::{
    CallFailed, CheckoutRequest, HoldRef, HoldView, NewHold, OrderAnswer, PaymentObserved,
    SeatCodes, SeatMap, ShowingSetup, Summary, VoidSeats,
};
use desk::{Refusal, Reply, Request};
use serde_json::Value;
use wasm_bindgen::prelude::{wasm_bindgen, JsValue};
use wasm_bindgen::JsCast;
use worker::js_sys::{Object, Promise};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{web_sys, Env, Method, Request as HttpRequest, RequestInit, Response};

use super::LIVE_PATH;
use crate::api_error::ApiError;

#[wasm_bindgen]
extern "C" {
    /// A stub of the `Showtime` class in src/entry.mjs, with the one RPC
    /// method it adds.
    #[wasm_bindgen(extends = Object)]
    type ShowtimeStub;

    /// Answers a promise of the reply's JSON text.
    #[wasm_bindgen(method, catch)]
    fn desk(this: &ShowtimeStub, request: &str) -> Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn fetch(this: &ShowtimeStub, request: &web_sys::Request) -> Result<Promise, JsValue>;
}

/// A granted hold, or the first answer to the same idempotent request.
pub enum HoldAnswer {
    Granted(desk::protocol::HoldGranted),
    Replayed { status: u16, body: String },
}

/// One showing's object. The same id always reaches the same object, which
/// is what makes it the single place seats are decided.
pub struct ShowtimeClient {
    stub: ShowtimeStub,
    /// What a fresh stub is made from, for the one retry of a call the
    /// runtime says did not arrive.
    env: Env,
    showing_id: String,
}

/// Whether the runtime marked a failed call `name` (`overloaded`,
/// `retryable`): see Cloudflare's "Durable Objects: error handling".
fn marked(error: &JsValue, name: &str) -> bool {
    worker::js_sys::Reflect::get(error, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// A failed call as the caller is told it: an overloaded object is not
/// asked again (that would only add to its load), and the caller is told
/// to come back; nothing was decided.
fn failed(request: &Request, error: JsValue) -> ApiError {
    let overloaded = marked(&error, "overloaded");
    match request.after_failure(overloaded, false, false) {
        CallFailed::Busy => Refusal::new(
            desk::Code::ShowingBusy,
            "this showing is busy right now; nothing was decided, try again in a moment",
        )
        .retry_after(1)
        .into(),
        _ => worker::Error::from(error).into(),
    }
}

fn stub_of(env: &Env, showing_id: &str) -> worker::Result<ShowtimeStub> {
    Ok(env
        .durable_object("SHOWTIME")?
        .id_from_name(showing_id)?
        .get_stub()?
        .into_rpc())
}

async fn call(stub: &ShowtimeStub, request: &str) -> Result<JsValue, JsValue> {
    JsFuture::from(stub.desk(request)?).await
}

fn unexpected(reply: Reply) -> ApiError {
    ApiError::internal(format!("the showing answered out of turn: {reply:?}"))
}

impl ShowtimeClient {
    pub fn new(env: &Env, showing_id: &str) -> worker::Result<ShowtimeClient> {
        Ok(ShowtimeClient {
            stub: stub_of(env, showing_id)?,
            env: env.clone(),
            showing_id: showing_id.to_string(),
        })
    }

    /// One request to the object, by RPC: the protocol's JSON text there
    /// and back, one string each way across the runtime.
    async fn ask(&self, request: &Request) -> Result<Reply, ApiError> {
        let text = serde_json::to_string(request).map_err(|e| ApiError::internal(e.to_string()))?;
        let answer = match call(&self.stub, &text).await {
            Ok(answer) => answer,
            Err(e) => {
                let (overloaded, retryable) = (marked(&e, "overloaded"), marked(&e, "retryable"));
                if request.after_failure(overloaded, retryable, true) != CallFailed::AskAgain {
                    return Err(failed(request, e));
                }
                let stub = stub_of(&self.env, &self.showing_id)?;
                call(&stub, &text).await.map_err(|e| failed(request, e))?
            }
        };
        let answer = answer
            .as_string()
            .ok_or_else(|| ApiError::internal("the showing's answer is not text"))?;
        let answer: Result<Reply, Refusal> = serde_json::from_str(&answer)
            .map_err(|e| ApiError::internal(format!("the showing's answer: {e}")))?;
        Ok(answer?)
    }

    async fn done(&self, request: &Request) -> Result<(), ApiError> {
        match self.ask(request).await? {
            Reply::Done => Ok(()),
            other => Err(unexpected(other)),
        }
    }

    /// Sets up a new showing: `true` if it was made now, `false` if the
    /// same one existed.
    pub async fn init(&self, setup: ShowingSetup) -> Result<bool, ApiError> {
        match self.ask(&Request::Init(setup)).await? {
            Reply::Created { new } => Ok(new),
            other => Err(unexpected(other)),
        }
    }

    /// Staff edited the showing: `true` if its seats changed.
    pub async fn configure(&self, setup: ShowingSetup) -> Result<bool, ApiError> {
        match self.ask(&Request::Configure(setup)).await? {
            Reply::Configured { relayout } => Ok(relayout),
            other => Err(unexpected(other)),
        }
    }

    /// Staff cancelled the showing: when it was cancelled, and whether this
    /// request did it.
    pub async fn cancel(&self) -> Result<(bool, u64), ApiError> {
        match self.ask(&Request::Cancel).await? {
            Reply::Cancelled {
                new,
                cancelled_at_ms,
            } => Ok((new, cancelled_at_ms)),
            other => Err(unexpected(other)),
        }
    }

    pub async fn seats(&self) -> Result<SeatMap, ApiError> {
        match self.ask(&Request::Seats).await? {
            Reply::Seats(map) => Ok(map),
            other => Err(unexpected(other)),
        }
    }

    /// Each seat and the order it is pending for or sold to.
    pub async fn sales(&self) -> Result<Vec<desk::protocol::SeatSale>, ApiError> {
        match self.ask(&Request::Sales).await? {
            Reply::Sales { seats } => Ok(seats),
            other => Err(unexpected(other)),
        }
    }

    pub async fn seat_codes(&self) -> Result<SeatCodes, ApiError> {
        match self.ask(&Request::SeatCodes).await? {
            Reply::Codes(codes) => Ok(codes),
            other => Err(unexpected(other)),
        }
    }

    pub async fn summary(&self) -> Result<Summary, ApiError> {
        match self.ask(&Request::Summary).await? {
            Reply::Summary(summary) => Ok(summary),
            other => Err(unexpected(other)),
        }
    }

    pub async fn stats(&self) -> Result<Value, ApiError> {
        match self.ask(&Request::Stats).await? {
            Reply::Stats(stats) => Ok(stats),
            other => Err(unexpected(other)),
        }
    }

    pub async fn hold(&self, new: NewHold) -> Result<HoldAnswer, ApiError> {
        match self.ask(&Request::Hold(new)).await? {
            Reply::Held(granted) => Ok(HoldAnswer::Granted(granted)),
            Reply::Replayed { status, body } => Ok(HoldAnswer::Replayed { status, body }),
            other => Err(unexpected(other)),
        }
    }

    pub async fn get_hold(&self, hold: HoldRef) -> Result<HoldView, ApiError> {
        match self.ask(&Request::GetHold(hold)).await? {
            Reply::Hold(view) => Ok(view),
            other => Err(unexpected(other)),
        }
    }

    /// Applies a discount code to a hold; answers the hold with it.
    pub async fn apply_code(&self, apply: desk::protocol::ApplyCode) -> Result<HoldView, ApiError> {
        match self.ask(&Request::ApplyCode(apply)).await? {
            Reply::Hold(view) => Ok(view),
            other => Err(unexpected(other)),
        }
    }

    pub async fn release_hold(&self, hold: HoldRef) -> Result<(), ApiError> {
        self.done(&Request::ReleaseHold(hold)).await
    }

    /// Pays for a hold; answers once the order has gone as far as it can
    /// for now.
    pub async fn checkout(&self, checkout: CheckoutRequest) -> Result<OrderAnswer, ApiError> {
        match self.ask(&Request::Checkout(checkout)).await? {
            Reply::Order(order) => Ok(order),
            other => Err(unexpected(other)),
        }
    }

    /// Where an order of this showing stands; `None` if the showing's
    /// object never started it.
    pub async fn order_status(&self, order_id: &str) -> Result<Option<OrderAnswer>, ApiError> {
        let request = Request::OrderStatus {
            order_id: order_id.to_string(),
        };
        match self.ask(&request).await {
            Ok(Reply::Order(order)) => Ok(Some(order)),
            Ok(other) => Err(unexpected(other)),
            Err(e) if e.code == desk::Code::NotFound.as_str() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Sells or gives seats at the box office; answers once the order has
    /// gone as far as it can for now.
    pub async fn box_office(
        &self,
        sale: desk::protocol::BoxOfficeSale,
    ) -> Result<OrderAnswer, ApiError> {
        match self.ask(&Request::BoxOffice(sale)).await? {
            Reply::Order(order) => Ok(order),
            other => Err(unexpected(other)),
        }
    }

    pub async fn allocate(
        &self,
        new: desk::protocol::NewAllocation,
    ) -> Result<desk::protocol::Allocation, ApiError> {
        match self.ask(&Request::Allocate(new)).await? {
            Reply::Allocation(made) => Ok(made),
            other => Err(unexpected(other)),
        }
    }

    pub async fn allocations(&self) -> Result<Vec<desk::protocol::Allocation>, ApiError> {
        match self.ask(&Request::Allocations).await? {
            Reply::Allocations { allocations } => Ok(allocations),
            other => Err(unexpected(other)),
        }
    }

    pub async fn release_allocation(&self, id: &str) -> Result<(), ApiError> {
        self.done(&Request::ReleaseAllocation { id: id.to_string() })
            .await
    }

    pub async fn join_waitlist(
        &self,
        join: desk::protocol::JoinWaitlist,
    ) -> Result<desk::protocol::WaitlistPlace, ApiError> {
        match self.ask(&Request::JoinWaitlist(join)).await? {
            Reply::WaitlistJoined(place) => Ok(place),
            other => Err(unexpected(other)),
        }
    }

    pub async fn waitlist(&self) -> Result<Vec<desk::protocol::WaitlistEntryView>, ApiError> {
        match self.ask(&Request::Waitlist).await? {
            Reply::Waitlist { entries } => Ok(entries),
            other => Err(unexpected(other)),
        }
    }

    pub async fn claim_offer(
        &self,
        claim: desk::protocol::ClaimOffer,
    ) -> Result<HoldAnswer, ApiError> {
        match self.ask(&Request::ClaimOffer(claim)).await? {
            Reply::Held(granted) => Ok(HoldAnswer::Granted(granted)),
            other => Err(unexpected(other)),
        }
    }

    /// The seats best available would pick at the counter now, holding
    /// nothing.
    pub async fn best_seats(
        &self,
        best: desk::protocol::BestHold,
    ) -> Result<Vec<String>, ApiError> {
        match self.ask(&Request::BestSeats(best)).await? {
            Reply::Best { seats } => Ok(seats),
            other => Err(unexpected(other)),
        }
    }

    pub async fn payment_observed(&self, seen: PaymentObserved) -> Result<(), ApiError> {
        self.done(&Request::PaymentObserved(seen)).await
    }

    pub async fn recover(&self) -> Result<(), ApiError> {
        self.done(&Request::Recover).await
    }

    pub async fn void_seats(&self, void: VoidSeats) -> Result<(), ApiError> {
        self.done(&Request::VoidSeats(void)).await
    }

    /// Moves a sold ticket to another seat; the same ticket asked again
    /// answers the move it made then.
    pub async fn move_ticket(
        &self,
        request: desk::protocol::MoveTicket,
    ) -> Result<desk::protocol::TicketMoved, ApiError> {
        match self.ask(&Request::MoveTicket(request)).await? {
            Reply::Moved(moved) => Ok(moved),
            other => Err(unexpected(other)),
        }
    }

    /// The benchmark's floors: a request that does nothing, or one write.
    pub async fn bench(&self, write: bool) -> Result<(), ApiError> {
        self.done(&if write {
            Request::BenchWrite
        } else {
            Request::BenchNoop
        })
        .await
    }

    /// Hands a browser's WebSocket upgrade to the object, which keeps the
    /// socket.
    pub async fn upgrade(&self, req: &HttpRequest) -> worker::Result<Response> {
        let mut init = RequestInit::new();
        init.with_method(Method::Get)
            .with_headers(req.headers().clone());
        // Stub requests need an absolute URL; the host is never resolved.
        let forwarded =
            HttpRequest::new_with_init(&format!("https://showtime.internal{LIVE_PATH}"), &init)?;
        let answer = JsFuture::from(self.stub.fetch(forwarded.inner())?).await?;
        Ok(Response::from(answer.dyn_into::<web_sys::Response>()?))
    }
}

#[wasm_bindgen]
extern "C" {
    /// A stub of the `WaitingRoom` class in src/entry.mjs.
    #[wasm_bindgen(extends = worker::js_sys::Object)]
    type WaitingRoomStub;

    #[wasm_bindgen(method, catch)]
    fn join(
        this: &WaitingRoomStub,
        request: &str,
    ) -> std::result::Result<worker::js_sys::Promise, JsValue>;
}

/// Puts `join.session` in the line of `showing_id`'s waiting room (its
/// own object, `src/waiting_room.rs`), answering where it stands.
pub async fn join_waiting_room(
    env: &Env,
    showing_id: &str,
    join: &crate::waiting_room::Join,
) -> std::result::Result<crate::waiting_room::Joined, ApiError> {
    let stub: WaitingRoomStub = env
        .durable_object("WAITING_ROOM")?
        .id_from_name(showing_id)?
        .get_stub()?
        .into_rpc();
    let text = serde_json::to_string(join).map_err(|e| ApiError::internal(e.to_string()))?;
    let promise = stub.join(&text).map_err(worker::Error::from)?;
    answer_of(promise, "the waiting room").await
}

/// What an object's RPC method answered: JSON text of `Result<T, String>`,
/// the error being the object's own (its storage's, or a request it could
/// not read).
async fn answer_of<T: serde::de::DeserializeOwned>(
    promise: worker::js_sys::Promise,
    object: &str,
) -> std::result::Result<T, ApiError> {
    let answer = worker::wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(worker::Error::from)?;
    let text = answer
        .as_string()
        .ok_or_else(|| ApiError::internal(format!("{object} answered no text")))?;
    let answer: std::result::Result<T, String> =
        serde_json::from_str(&text).map_err(|e| ApiError::internal(e.to_string()))?;
    answer.map_err(|e| ApiError::internal(format!("{object}: {e}")))
}

#[wasm_bindgen]
extern "C" {
    /// A stub of the `CodeUses` class in src/entry.mjs.
    #[wasm_bindgen(extends = worker::js_sys::Object)]
    type CodeUsesStub;

    #[wasm_bindgen(method, catch)]
    fn uses(
        this: &CodeUsesStub,
        request: &str,
    ) -> std::result::Result<worker::js_sys::Promise, JsValue>;
}

/// Asks the object of the limited code `code` (`src/code_uses.rs`),
/// which decides its every use.
pub async fn code_uses(
    env: &Env,
    code: &str,
    request: &uses::Request,
) -> std::result::Result<std::result::Result<uses::Reply, uses::Refused>, ApiError> {
    let stub: CodeUsesStub = env
        .durable_object("CODE_USES")?
        .id_from_name(code)?
        .get_stub()?
        .into_rpc();
    let text = serde_json::to_string(request).map_err(|e| ApiError::internal(e.to_string()))?;
    let promise = stub.uses(&text).map_err(worker::Error::from)?;
    answer_of(promise, "the code's object").await
}
