//! Injected failures: the next N calls to an endpoint answer slowly, lose
//! their answer after doing the work, or fail with a 5xx without doing it.

use std::collections::HashMap;

use axum::http::Method;
use serde::Deserialize;

/// The API endpoints a fault can be aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    CreatePayment,
    CompletePayment,
    CancelPayment,
    CancelByKey,
    GetPayment,
    Refund,
    GetRefund,
}

impl Endpoint {
    /// Which endpoint a request is for, from its method and path.
    pub fn of(method: &Method, path: &str) -> Option<Endpoint> {
        let segments: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
        match (method.as_str(), segments.as_slice()) {
            ("POST", ["v2", "payments"]) => Some(Endpoint::CreatePayment),
            ("POST", ["v2", "payments", "cancel"]) => Some(Endpoint::CancelByKey),
            ("POST", ["v2", "payments", _, "complete"]) => Some(Endpoint::CompletePayment),
            ("POST", ["v2", "payments", _, "cancel"]) => Some(Endpoint::CancelPayment),
            ("GET", ["v2", "payments", _]) => Some(Endpoint::GetPayment),
            ("POST", ["v2", "refunds"]) => Some(Endpoint::Refund),
            ("GET", ["v2", "refunds", _]) => Some(Endpoint::GetRefund),
            _ => None,
        }
    }
}

/// The 5xx (and 429) answers a fault can give; each has Square's code.
pub const FAULT_STATUSES: [u16; 4] = [429, 500, 503, 504];
pub const MAX_FAULT_DELAY_MS: u64 = 60_000;
pub const MAX_FAULT_TIMES: u32 = 1_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Do the work, then wait this long before answering.
    Delay { delay_ms: u64 },
    /// Do the work, then close the connection without answering.
    Drop,
    /// Do not do the work; answer this status.
    Status(u16),
}

#[derive(Debug, PartialEq, Eq)]
pub enum FaultRejected {
    DelayTooLong,
    UnsupportedStatus(u16),
    TooManyTimes,
}

#[derive(Debug, Default)]
pub struct Faults {
    /// One plan per endpoint: setting a new one replaces the old.
    armed: HashMap<Endpoint, (Fault, u32)>,
}

impl Faults {
    pub fn arm(
        &mut self,
        endpoint: Endpoint,
        fault: Fault,
        times: u32,
    ) -> Result<(), FaultRejected> {
        match fault {
            Fault::Delay { delay_ms } if delay_ms > MAX_FAULT_DELAY_MS => {
                return Err(FaultRejected::DelayTooLong)
            }
            Fault::Status(status) if !FAULT_STATUSES.contains(&status) => {
                return Err(FaultRejected::UnsupportedStatus(status))
            }
            _ => {}
        }
        if times > MAX_FAULT_TIMES {
            return Err(FaultRejected::TooManyTimes);
        }
        if times > 0 {
            self.armed.insert(endpoint, (fault, times));
        }
        Ok(())
    }

    /// The fault for this call, if one is armed; each call uses one of its
    /// `times`.
    pub fn take(&mut self, endpoint: Endpoint) -> Option<Fault> {
        let (fault, remaining) = self.armed.get_mut(&endpoint)?;
        let fault = *fault;
        *remaining -= 1;
        if *remaining == 0 {
            self.armed.remove(&endpoint);
        }
        Some(fault)
    }

    pub fn clear(&mut self) {
        self.armed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_applies_to_the_next_n_calls_only() {
        let mut faults = Faults::default();
        faults.arm(Endpoint::Refund, Fault::Drop, 2).unwrap();
        assert_eq!(faults.take(Endpoint::CreatePayment), None);
        assert_eq!(faults.take(Endpoint::Refund), Some(Fault::Drop));
        assert_eq!(faults.take(Endpoint::Refund), Some(Fault::Drop));
        assert_eq!(faults.take(Endpoint::Refund), None);
    }

    #[test]
    fn limits_are_enforced() {
        let mut faults = Faults::default();
        assert_eq!(
            faults.arm(Endpoint::Refund, Fault::Status(418), 1),
            Err(FaultRejected::UnsupportedStatus(418))
        );
        assert_eq!(
            faults.arm(
                Endpoint::Refund,
                Fault::Delay {
                    delay_ms: MAX_FAULT_DELAY_MS + 1
                },
                1
            ),
            Err(FaultRejected::DelayTooLong)
        );
    }

    #[test]
    fn endpoints_by_route() {
        let post = Method::POST;
        assert_eq!(
            Endpoint::of(&post, "/v2/payments"),
            Some(Endpoint::CreatePayment)
        );
        assert_eq!(
            Endpoint::of(&post, "/v2/payments/cancel"),
            Some(Endpoint::CancelByKey)
        );
        assert_eq!(
            Endpoint::of(&post, "/v2/payments/P1/complete"),
            Some(Endpoint::CompletePayment)
        );
        assert_eq!(
            Endpoint::of(&post, "/v2/payments/P1/cancel"),
            Some(Endpoint::CancelPayment)
        );
        assert_eq!(
            Endpoint::of(&Method::GET, "/v2/payments/P1"),
            Some(Endpoint::GetPayment)
        );
        assert_eq!(Endpoint::of(&post, "/v2/refunds"), Some(Endpoint::Refund));
        assert_eq!(
            Endpoint::of(&Method::GET, "/v2/refunds/R1"),
            Some(Endpoint::GetRefund)
        );
        assert_eq!(Endpoint::of(&Method::GET, "/v2/locations"), None);
    }
}
