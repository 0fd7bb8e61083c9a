//! The `Showtime` Durable Object: one per showing, named by the showing id.
//! Every request about that showing's seats passes through it one at a time,
//! so a seat decision never races another.
//!
//! The Worker talks to it over internal HTTP ([`client`]); the object keeps
//! its seats in its own SQLite storage ([`store`]).

pub mod client;
mod store;

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use worker::{durable_object, DurableObject, Env, Method, Request, Response, Result, State};

use crate::api_error::ApiError;
use crate::showing::Units;
use store::Seats;

/// What the Worker sends to set up a new showing's object.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InitShowing {
    pub showing_id: String,
    pub units: Units,
    pub max_seats_per_hold: u32,
    pub hold_ttl_ms: u64,
}

#[durable_object]
pub struct Showtime {
    state: State,
    /// The seats as last read from or written to storage. `None` until the
    /// first request loads them; storage stays the source of truth, so an
    /// evicted or reset object loses nothing.
    seats: RefCell<Option<Seats>>,
}

impl DurableObject for Showtime {
    fn new(state: State, _env: Env) -> Self {
        Showtime {
            state,
            seats: RefCell::new(None),
        }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let outcome = match (req.method(), req.path().as_str()) {
            (Method::Post, "/init") => self.init(req).await,
            (Method::Get, "/seats") => self.availability(),
            _ => Err(ApiError::not_found("route")),
        };
        outcome.or_else(ApiError::into_response)
    }
}

impl Showtime {
    fn sql(&self) -> worker::SqlStorage {
        self.state.storage().sql()
    }

    /// Loads the seats from storage into memory once per object lifetime.
    fn ensure_loaded(&self) -> std::result::Result<(), ApiError> {
        if self.seats.borrow().is_some() {
            return Ok(());
        }
        let loaded = Seats::load(&self.sql())?;
        *self.seats.borrow_mut() = loaded;
        Ok(())
    }

    async fn init(&self, mut req: Request) -> std::result::Result<Response, ApiError> {
        let init: InitShowing = req
            .json()
            .await
            .map_err(|e| ApiError::bad_json(format!("init body: {e}")))?;
        self.ensure_loaded()?;
        if let Some(existing) = self.seats.borrow().as_ref() {
            // Creating the same showing twice is harmless; a different
            // layout under the same id is a bug in the caller.
            return if existing.names() == init.units.names.as_slice() {
                Ok(Response::empty()?.with_status(200))
            } else {
                Err(ApiError::new(
                    409,
                    "showing_exists",
                    "this showing already has a different layout",
                ))
            };
        }
        let seats = Seats::create(&self.sql(), &init)?;
        *self.seats.borrow_mut() = Some(seats);
        Ok(Response::empty()?.with_status(201))
    }

    fn availability(&self) -> std::result::Result<Response, ApiError> {
        self.ensure_loaded()?;
        let seats = self.seats.borrow();
        let seats = seats.as_ref().ok_or_else(|| ApiError::not_found("showing"))?;
        Ok(Response::from_json(&seats.availability())?)
    }
}
