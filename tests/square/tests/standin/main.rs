//! Drives the stand-in over HTTP the way the Worker and the test suites do.
//! Every test starts its own server on a free loopback port.

mod harness;

mod control;
mod faults;
mod idempotency;
mod listing;
mod orders;
mod payments;
mod refunds;
mod sdk;
mod turnstile;
mod webhooks;
