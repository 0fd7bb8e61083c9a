//! Starting a checkout within its limits, and reading one back from storage.

mod script;

use checkout::{
    Checkout, Config, ConfigError, InvariantError, StartError, TextProblem, MAX_SEATS_PER_ORDER,
};
use script::{new_checkout, START_MS, TOKEN};

fn refused(change: impl FnOnce(&mut checkout::NewCheckout)) -> StartError {
    let mut new = new_checkout();
    change(&mut new);
    Checkout::start(new, START_MS, &Config::default()).expect_err("must be refused")
}

#[test]
fn each_limit_is_refused_by_name() {
    assert_eq!(
        refused(|n| n.order_id = "o".repeat(41)),
        StartError::InvalidOrderId(TextProblem::TooLong { len: 41, max: 40 })
    );
    assert_eq!(
        refused(|n| n.hold_id = "a b".to_owned()),
        StartError::InvalidHoldId(TextProblem::BadCharacter)
    );
    assert_eq!(refused(|n| n.seats.clear()), StartError::NoSeats);
    assert_eq!(
        refused(|n| n.seats = (0..11).map(|i| format!("A{i}")).collect()),
        StartError::TooManySeats {
            count: 11,
            max: MAX_SEATS_PER_ORDER
        }
    );
    assert_eq!(
        refused(|n| n.seats = vec!["A1".to_owned(), "A1".to_owned()]),
        StartError::DuplicateSeat {
            seat: "A1".to_owned()
        }
    );
    assert_eq!(
        refused(|n| n.amount_minor = checkout::MAX_AMOUNT_MINOR + 1),
        StartError::AmountOutOfRange {
            amount_minor: checkout::MAX_AMOUNT_MINOR + 1,
            max: checkout::MAX_AMOUNT_MINOR
        }
    );
    // 0 is a free order, but only if its seats' prices say so.
    assert_eq!(
        refused(|n| n.amount_minor = 0),
        StartError::PricesDoNotAddUp
    );
    assert_eq!(
        refused(|n| n.currency = "usd".to_owned()),
        StartError::InvalidCurrency
    );
    assert_eq!(
        refused(|n| n.source_id = String::new()),
        StartError::InvalidSourceId(TextProblem::Empty)
    );
    assert_eq!(
        refused(|n| n.buyer_email = "a\nb".to_owned()),
        StartError::InvalidBuyerEmail(TextProblem::BadCharacter)
    );
    let config = Config {
        retry_base_ms: 0,
        ..Config::default()
    };
    assert_eq!(
        Checkout::start(new_checkout(), START_MS, &config).unwrap_err(),
        StartError::Config(ConfigError::RetryBaseOutOfRange { value_ms: 0 })
    );
}

#[test]
fn a_refusal_and_a_debug_print_never_show_the_card_token() {
    let error = refused(|n| n.source_id = format!("{TOKEN} with a space"));
    assert!(!error.to_string().contains(TOKEN));
    assert!(!format!("{:?}", new_checkout()).contains(TOKEN));
    let (checkout, _) = Checkout::start(new_checkout(), START_MS, &Config::default()).unwrap();
    assert!(!format!("{checkout:?}").contains(TOKEN));
}

#[test]
fn a_stored_checkout_that_breaks_a_rule_is_refused_on_read() {
    let (checkout, _) = Checkout::start(new_checkout(), START_MS, &Config::default()).unwrap();
    let json = serde_json::to_value(&checkout).unwrap();
    let read = |value: serde_json::Value| serde_json::from_value::<Checkout>(value);

    let mut no_token = json.clone();
    no_token["source_id"] = serde_json::Value::Null;
    let error = read(no_token).unwrap_err().to_string();
    assert!(
        error.contains(&format!("{:?}", InvariantError::CardTokenMisplaced)),
        "{error}"
    );

    let mut settled_with_token = json.clone();
    settled_with_token["authorization"] = serde_json::json!({"Rejected": {"code": "X"}});
    assert!(read(settled_with_token).is_err());

    let mut sold_unpaid = json.clone();
    sold_unpaid["seats"] = serde_json::json!("Sold");
    assert!(read(sold_unpaid).is_err());

    let mut wrong_step = json.clone();
    wrong_step["in_flight"]["step"] = serde_json::json!("capture");
    assert!(read(wrong_step).is_err());

    let mut long_order = json;
    long_order["order"]["order_id"] = serde_json::json!("o".repeat(41));
    assert!(read(long_order).is_err());
}

#[test]
fn a_clock_that_goes_backwards_is_read_as_the_latest_seen() {
    let (mut checkout, _) = Checkout::start(new_checkout(), START_MS, &Config::default()).unwrap();
    let due = checkout.poll_timeout().unwrap();
    assert_eq!(due, START_MS + 30_000);
    assert!(checkout.handle_timeout(0).is_empty());
    assert!(
        checkout.handle_timeout(u64::MAX).len() == 1,
        "the unanswered request counts"
    );
    assert!(
        checkout.handle_timeout(START_MS).len() == 2,
        "retry: audit and CreatePayment"
    );
    assert_eq!(
        checkout.poll_timeout(),
        Some(u64::MAX),
        "deadlines saturate"
    );
}

#[test]
fn seat_prices_must_name_each_seat_in_order_and_add_up_to_the_amount() {
    assert_eq!(
        refused(|n| n.prices[1].amount_minor = 800),
        StartError::PricesDoNotAddUp
    );
    assert_eq!(
        refused(|n| n.prices.swap(0, 1)),
        StartError::PricesDoNotMatchSeats
    );
    let seat = "A2".to_string();
    assert_eq!(
        refused(|n| n.prices[1].tax_minor = 1_201),
        StartError::TaxOutOfRange { seat: seat.clone() },
        "a seat's tax is part of its price"
    );
    assert_eq!(
        refused(|n| n.prices[1].tax_rate_bps = checkout::MAX_TAX_RATE_BPS + 1),
        StartError::TaxOutOfRange { seat }
    );
    assert_eq!(
        refused(|n| {
            n.prices.pop();
        }),
        StartError::PricesDoNotMatchSeats
    );
    assert_eq!(
        refused(|n| n.prices[0].category = "a b".to_owned()),
        StartError::InvalidCategory(TextProblem::BadCharacter)
    );
    // A child's seat at 800 and an adult's at 1200 make 2000.
    let mut mixed = new_checkout();
    mixed.prices[1].category = "child".to_owned();
    mixed.prices[1].name = "Child".to_owned();
    mixed.prices[1].amount_minor = 800;
    mixed.amount_minor = 2_000;
    let (machine, _) = Checkout::start(mixed, START_MS, &Config::default()).expect("started");
    assert_eq!(machine.order().prices[1].amount_minor, 800);
    // An order stored before seats had prices reads back with none.
    let mut stored = serde_json::to_value(machine.order()).unwrap();
    stored.as_object_mut().unwrap().remove("prices");
    let old: checkout::Order = serde_json::from_value(stored).unwrap();
    assert!(old.prices.is_empty());
}
