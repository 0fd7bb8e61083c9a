//! Where Square does not document what it answers, the stand-in's reading,
//! and a switch to the other reading of each (`POST /_control/guesses`),
//! so the Worker can be tried against both. `POST /_control/reset` puts
//! back the defaults. The README's "Where Square's behaviour is a guess"
//! lists each with its switch.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    Refused,
    Accepted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepeatedMove {
    /// Completing a COMPLETED payment, or cancelling a CANCELED one,
    /// answers it unchanged.
    Unchanged,
    /// It is refused (400 `BAD_REQUEST`).
    Refused,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownSource {
    /// 404 `NOT_FOUND`.
    NotFound,
    /// 400 `INVALID_VALUE` on `source_id`.
    Invalid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WalletVerification {
    /// At GBP and EUR locations (the UK and the EEA).
    UkAndEea,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeCancel {
    /// A cancelled challenge answers `tokenize()` with `status: 'Cancel'`.
    Cancel,
    /// With `status: 'Error'`.
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DomainStatus {
    Verified,
    Pending,
}

/// Every guess, as the stand-in reads Square now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Guesses {
    /// A decline's HTTP status: 400 or 402.
    pub decline_status: u16,
    pub repeated_move: RepeatedMove,
    /// Cancel-by-key of a captured payment: refused with
    /// `DELAYED_TRANSACTION_CAPTURED`, or answered `{}` as if done.
    pub cancel_by_key_after_capture: Refusal,
    pub unknown_source: UnknownSource,
    /// A declined CreatePayment sends `payment.created` (FAILED), or no
    /// webhook (`false`).
    pub declined_webhook: bool,
    /// Completing or cancelling a PENDING payment: refused (400
    /// `BAD_REQUEST`), or done as if it had settled APPROVED.
    pub pending_moves: Refusal,
    /// A new refund while another of the payment is PENDING: refused with
    /// `REFUND_ALREADY_PENDING`, or accepted.
    pub refund_while_pending: Refusal,
    /// A refund of a payment after one of it FAILED: refused with
    /// `PAYMENT_NOT_REFUNDABLE`, or accepted.
    pub refund_after_failed: Refusal,
    pub wallet_verification: WalletVerification,
    /// A `verification_token` not made for the charged token: treated as
    /// none (`accepted`, then declined as unverified), or refused (400
    /// `INVALID_VALUE`).
    pub verification_mismatch: Refusal,
    /// What RegisterDomain answers.
    pub register_domain: DomainStatus,
    /// Square's limit: "There is a limit of 20 refunds per payment ID"
    /// (<https://developer.squareup.com/docs/payments-api/refund-payments>);
    /// the answer past it is the guess (400 `PAYMENT_NOT_REFUNDABLE`).
    pub refunds_per_payment: usize,
    pub challenge_cancel: ChallengeCancel,
}

impl Default for Guesses {
    fn default() -> Self {
        Guesses {
            decline_status: 400,
            repeated_move: RepeatedMove::Unchanged,
            cancel_by_key_after_capture: Refusal::Refused,
            unknown_source: UnknownSource::NotFound,
            declined_webhook: true,
            pending_moves: Refusal::Refused,
            refund_while_pending: Refusal::Refused,
            refund_after_failed: Refusal::Refused,
            wallet_verification: WalletVerification::UkAndEea,
            verification_mismatch: Refusal::Accepted,
            register_domain: DomainStatus::Verified,
            refunds_per_payment: 20,
            challenge_cancel: ChallengeCancel::Cancel,
        }
    }
}

impl Guesses {
    /// Whether a wallet payment at a location taking `currency` needs
    /// buyer verification.
    pub fn wallet_needs_verification(&self, currency: &str) -> bool {
        match self.wallet_verification {
            WalletVerification::UkAndEea => matches!(currency, "GBP" | "EUR"),
            WalletVerification::Always => true,
            WalletVerification::Never => false,
        }
    }

    /// The SDK's status for a cancelled challenge.
    pub fn challenge_cancel_status(&self) -> &'static str {
        match self.challenge_cancel {
            ChallengeCancel::Cancel => "Cancel",
            ChallengeCancel::Error => "Error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_changes_one_guess_and_unknown_names_are_refused() {
        let switched: Guesses =
            serde_json::from_str(r#"{"wallet_verification": "always"}"#).unwrap();
        assert_eq!(
            switched,
            Guesses {
                wallet_verification: WalletVerification::Always,
                ..Guesses::default()
            }
        );
        assert!(serde_json::from_str::<Guesses>(r#"{"no_such_guess": true}"#).is_err());
        assert!(serde_json::from_str::<Guesses>(r#"{"pending_moves": "maybe"}"#).is_err());
    }
}
