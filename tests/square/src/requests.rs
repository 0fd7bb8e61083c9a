//! Reading API request bodies into typed requests, with Square's field
//! checks: required fields, lengths, integer amounts, the location's currency.

use serde_json::{Map, Value};

use crate::clock::{MS_PER_DAY, MS_PER_MINUTE};
use crate::square_error::{ExpectedKind, SquareError};

pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 45;
pub const MAX_REFERENCE_ID_CHARS: usize = 40;
pub const MAX_NOTE_CHARS: usize = 500;
pub const MAX_BUYER_EMAIL_CHARS: usize = 255;
pub const MAX_REFUND_REASON_CHARS: usize = 192;
/// Square documents no limit on these; the stand-in bounds them anyway.
pub const MAX_ID_CHARS: usize = 192;
const MIN_DELAY_MS: u64 = MS_PER_MINUTE;
const MAX_DELAY_MS: u64 = 7 * MS_PER_DAY;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayAction {
    Cancel,
    Complete,
}

impl DelayAction {
    pub fn as_str(self) -> &'static str {
        match self {
            DelayAction::Cancel => "CANCEL",
            DelayAction::Complete => "COMPLETE",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CreatePayment {
    pub idempotency_key: String,
    pub source_id: String,
    pub amount: i64,
    pub autocomplete: bool,
    pub location_id: Option<String>,
    pub reference_id: Option<String>,
    /// The Orders API order it pays for.
    pub order_id: Option<String>,
    pub note: Option<String>,
    pub buyer_email_address: Option<String>,
    /// The duration as sent (`P7D` when absent) and its length.
    pub delay_duration: String,
    pub delay_ms: u64,
    pub delay_action: DelayAction,
    /// From the SDK's `verifyBuyer()`, for a source that needs it.
    pub verification_token: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RefundPayment {
    pub idempotency_key: String,
    pub payment_id: String,
    pub amount: i64,
    pub reason: Option<String>,
}

pub fn create_payment(body: &Value, currency: &str) -> Result<CreatePayment, SquareError> {
    let fields = object(body)?;
    let idempotency_key = idempotency_key(fields)?;
    let source_id = required_str(fields, "source_id", MAX_ID_CHARS)?;
    let amount = money(fields, "amount_money", currency)?;
    let autocomplete = optional_bool(fields, "autocomplete")?.unwrap_or(true);
    let location_id = optional_str(fields, "location_id", MAX_ID_CHARS)?;
    let reference_id = optional_str(fields, "reference_id", MAX_REFERENCE_ID_CHARS)?;
    let order_id = optional_str(fields, "order_id", MAX_ID_CHARS)?;
    let note = optional_str(fields, "note", MAX_NOTE_CHARS)?;
    let verification_token = optional_str(fields, "verification_token", MAX_ID_CHARS)?;
    let buyer_email_address = optional_str(fields, "buyer_email_address", MAX_BUYER_EMAIL_CHARS)?;
    if buyer_email_address
        .as_deref()
        .is_some_and(|email| !email.contains('@'))
    {
        return Err(SquareError::invalid_email("buyer_email_address"));
    }
    let delay_duration =
        optional_str(fields, "delay_duration", MAX_ID_CHARS)?.unwrap_or_else(|| "P7D".to_owned());
    let delay_ms = duration_ms(&delay_duration)
        .filter(|ms| (MIN_DELAY_MS..=MAX_DELAY_MS).contains(ms))
        .ok_or_else(|| {
            SquareError::invalid_value(
                "delay_duration",
                "Must be an RFC 3339 duration from PT1M to P7D.",
            )
        })?;
    let delay_action = match optional_str(fields, "delay_action", MAX_ID_CHARS)?.as_deref() {
        None | Some("CANCEL") => DelayAction::Cancel,
        Some("COMPLETE") => DelayAction::Complete,
        Some(_) => {
            return Err(SquareError::invalid_value(
                "delay_action",
                "Must be CANCEL or COMPLETE.",
            ))
        }
    };
    if order_id.is_some() && delay_action == DelayAction::Complete {
        // Forum, "delay_action COMPLETE with order_id": Square's answer.
        return Err(SquareError::bad_request(
            "delay_action",
            "provided value: COMPLETE is invalid if an order_id is provided",
        ));
    }
    Ok(CreatePayment {
        idempotency_key,
        source_id,
        amount,
        autocomplete,
        location_id,
        reference_id,
        order_id,
        note,
        buyer_email_address,
        delay_duration,
        delay_ms,
        delay_action,
        verification_token,
    })
}

pub fn refund_payment(body: &Value, currency: &str) -> Result<RefundPayment, SquareError> {
    let fields = object(body)?;
    Ok(RefundPayment {
        idempotency_key: idempotency_key(fields)?,
        payment_id: required_str(fields, "payment_id", MAX_ID_CHARS)?,
        amount: money(fields, "amount_money", currency)?,
        reason: optional_str(fields, "reason", MAX_REFUND_REASON_CHARS)?,
    })
}

/// `POST /v2/payments/cancel` names the CreatePayment's key.
pub fn cancel_by_key(body: &Value) -> Result<String, SquareError> {
    idempotency_key(object(body)?)
}

/// CompletePayment's optional `version_token`: when sent it must match.
pub fn version_token(body: &Value) -> Result<Option<String>, SquareError> {
    optional_str(object(body)?, "version_token", MAX_ID_CHARS)
}

fn object(body: &Value) -> Result<&Map<String, Value>, SquareError> {
    body.as_object().ok_or_else(SquareError::malformed_json)
}

fn idempotency_key(fields: &Map<String, Value>) -> Result<String, SquareError> {
    let key = required_str(fields, "idempotency_key", MAX_IDEMPOTENCY_KEY_CHARS)?;
    if key.is_empty() {
        return Err(SquareError::too_short("idempotency_key"));
    }
    Ok(key)
}

fn required_str(
    fields: &Map<String, Value>,
    name: &str,
    max_chars: usize,
) -> Result<String, SquareError> {
    optional_str(fields, name, max_chars)?.ok_or_else(|| SquareError::missing(name))
}

fn optional_str(
    fields: &Map<String, Value>,
    name: &str,
    max_chars: usize,
) -> Result<Option<String>, SquareError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.chars().count() > max_chars => {
            Err(SquareError::too_long(name, max_chars))
        }
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(SquareError::expected(name, ExpectedKind::String)),
    }
}

fn optional_bool(fields: &Map<String, Value>, name: &str) -> Result<Option<bool>, SquareError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(_) => Err(SquareError::expected(name, ExpectedKind::Boolean)),
    }
}

/// `{amount, currency}` with a positive integer amount in the location's
/// currency; returns the amount in minor units.
fn money(fields: &Map<String, Value>, name: &str, currency: &str) -> Result<i64, SquareError> {
    let money = match fields.get(name) {
        None | Some(Value::Null) => return Err(SquareError::missing(name)),
        Some(Value::Object(money)) => money,
        Some(_) => return Err(SquareError::expected(name, ExpectedKind::Object)),
    };
    let amount_field = format!("{name}.amount");
    let amount = match money.get("amount") {
        None | Some(Value::Null) => return Err(SquareError::missing(&amount_field)),
        Some(value) => value
            .as_i64()
            .ok_or_else(|| SquareError::expected(&amount_field, ExpectedKind::Integer))?,
    };
    if amount <= 0 {
        return Err(SquareError::too_low(&amount_field));
    }
    let currency_field = format!("{name}.currency");
    match money.get("currency") {
        None | Some(Value::Null) => Err(SquareError::missing(&currency_field)),
        Some(Value::String(sent)) if sent == currency => Ok(amount),
        Some(Value::String(_)) => Err(SquareError::invalid_value(
            &currency_field,
            format!("This merchant can only process payments in {currency}."),
        )),
        Some(_) => Err(SquareError::expected(&currency_field, ExpectedKind::String)),
    }
}

/// Length of an RFC 3339 duration such as `P7D`, `PT1M` or `P1DT12H30M`.
/// Years and months are refused: their length depends on the calendar.
fn duration_ms(text: &str) -> Option<u64> {
    let rest = text.strip_prefix('P')?;
    let (days_part, time_part) = match rest.split_once('T') {
        Some((days, time)) if !time.is_empty() => (days, Some(time)),
        Some(_) => return None,
        None => (rest, None),
    };
    let mut total: u64 = 0;
    let mut add = |part: &str, units: &[(char, u64)]| -> Option<()> {
        let mut number = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() {
                number.push(c);
                continue;
            }
            let (_, unit_ms) = units.iter().find(|(unit, _)| *unit == c)?;
            let count: u64 = number.parse().ok()?;
            total = total.checked_add(count.checked_mul(*unit_ms)?)?;
            number.clear();
        }
        number.is_empty().then_some(())
    };
    add(days_part, &[('W', 7 * MS_PER_DAY), ('D', MS_PER_DAY)])?;
    if let Some(time) = time_part {
        add(
            time,
            &[('H', 60 * MS_PER_MINUTE), ('M', MS_PER_MINUTE), ('S', 1000)],
        )?;
    }
    (text != "P").then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({
            "idempotency_key": "k-1",
            "source_id": "cnon:card-nonce-ok",
            "amount_money": {"amount": 1200, "currency": "USD"},
        })
    }

    fn code_and_field(body: Value) -> (&'static str, Option<String>) {
        let error = create_payment(&body, "USD").unwrap_err();
        (error.code, error.field)
    }

    #[test]
    fn defaults_match_square() {
        let request = create_payment(&valid(), "USD").unwrap();
        assert!(request.autocomplete);
        assert_eq!(request.delay_duration, "P7D");
        assert_eq!(request.delay_ms, 7 * MS_PER_DAY);
        assert_eq!(request.delay_action, DelayAction::Cancel);
    }

    #[test]
    fn each_field_rule_names_its_field() {
        let mut long_key = valid();
        long_key["idempotency_key"] = json!("k".repeat(46));
        assert_eq!(
            code_and_field(long_key),
            ("VALUE_TOO_LONG", Some("idempotency_key".into()))
        );
        let mut no_key = valid();
        no_key.as_object_mut().unwrap().remove("idempotency_key");
        assert_eq!(
            code_and_field(no_key),
            ("MISSING_REQUIRED_PARAMETER", Some("idempotency_key".into()))
        );
        let mut zero = valid();
        zero["amount_money"]["amount"] = json!(0);
        assert_eq!(
            code_and_field(zero),
            ("VALUE_TOO_LOW", Some("amount_money.amount".into()))
        );
        let mut fraction = valid();
        fraction["amount_money"]["amount"] = json!(12.5);
        assert_eq!(
            code_and_field(fraction),
            ("EXPECTED_INTEGER", Some("amount_money.amount".into()))
        );
        let mut euro = valid();
        euro["amount_money"]["currency"] = json!("EUR");
        assert_eq!(
            code_and_field(euro),
            ("INVALID_VALUE", Some("amount_money.currency".into()))
        );
        let mut reference = valid();
        reference["reference_id"] = json!("r".repeat(41));
        assert_eq!(
            code_and_field(reference),
            ("VALUE_TOO_LONG", Some("reference_id".into()))
        );
        let mut note = valid();
        note["note"] = json!("n".repeat(501));
        assert_eq!(
            code_and_field(note),
            ("VALUE_TOO_LONG", Some("note".into()))
        );
        let mut email = valid();
        email["buyer_email_address"] = json!(format!("{}@x.example", "e".repeat(250)));
        assert_eq!(
            code_and_field(email),
            ("VALUE_TOO_LONG", Some("buyer_email_address".into()))
        );
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms("PT1M"), Some(MS_PER_MINUTE));
        assert_eq!(
            duration_ms("P1DT12H"),
            Some(MS_PER_DAY + 12 * 60 * MS_PER_MINUTE)
        );
        assert_eq!(duration_ms("P1W"), Some(7 * MS_PER_DAY));
        assert_eq!(duration_ms("P1Y"), None);
        assert_eq!(duration_ms("PT"), None);
        assert_eq!(duration_ms("P"), None);
        assert_eq!(duration_ms("7D"), None);
    }
}
