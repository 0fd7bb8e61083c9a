//! Tax on every ticket: included in the price (VAT) with a category at
//! another rate, or added on top (US sales tax); each ticket's net and
//! tax, the order's tax, the amount Square is asked for, and a refund of
//! one ticket.

use e2e::{family_showing, Api, Method, Reply, Stack, StackOptions};
use serde_json::{json, Value};

/// Holds two seats at adult and a third at child, as a new buyer, and
/// pays.
async fn buy_family(api: &Api, sid: &str, seats: [&str; 3]) -> (Reply, Reply) {
    let body = json!({"seats": seats, "prices": {seats[2]: "child"}});
    let held = api.hold_with(sid, body).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let paid = api.checkout(sid, &held, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    (held, paid)
}

/// What the stand-in was asked to charge, last payment first.
async fn charged(stack: &Stack) -> Vec<u64> {
    let requests = stack.square.get("/_control/requests").await;
    let mut amounts: Vec<u64> = requests["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
        .map(|r| r["body"]["amount_money"]["amount"].as_u64().unwrap())
        .collect();
    amounts.reverse();
    amounts
}

/// Each ticket's (price, net, tax, rate) in seat order.
fn lines(tickets: &Value) -> Vec<(u64, u64, u64, u64)> {
    let n = |t: &Value, k: &str| t[k].as_u64().unwrap_or_else(|| panic!("{k} in {t}"));
    let mut lines: Vec<(String, (u64, u64, u64, u64))> = tickets
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let line = (
                n(t, "price_amount"),
                n(t, "net"),
                n(t, "tax"),
                n(t, "tax_rate_bps"),
            );
            (t["seat"].as_str().unwrap().to_string(), line)
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Square's order for the last payment: each line item's (total, tax) in
/// seat order, which must be the tickets' (price, tax), and its total.
async fn square_lines(stack: &Stack) -> (Vec<(u64, u64)>, u64, Value) {
    let order = stack.square.last_paid_order().await;
    let amount = |v: &Value| v["amount"].as_u64().unwrap_or_else(|| panic!("{v}"));
    let mut lines: Vec<(String, (u64, u64))> = order["line_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let line = (amount(&l["total_money"]), amount(&l["total_tax_money"]));
            (l["uid"].as_str().unwrap().to_string(), line)
        })
        .collect();
    lines.sort();
    let lines = lines.into_iter().map(|(_, line)| line).collect();
    (lines, amount(&order["total_money"]), order)
}

fn price_and_tax(sold: &[(u64, u64, u64, u64)]) -> Vec<(u64, u64)> {
    sold.iter()
        .map(|&(price, _, tax, _)| (price, tax))
        .collect()
}

async fn order_page(api: &Api, paid: &Reply) -> Value {
    let url = paid.body["order_url"].as_str().expect("the order's link");
    let page = api.get(url).await;
    assert_eq!(page.status, 200, "{:?}", page.body);
    page.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tax_is_included_or_added_and_every_receipt_line_adds_up_to_what_square_charged() {
    let vat = StackOptions::default()
        .var("TAX_RATE_BPS", "2000")
        .var("TAX_NAME", "VAT")
        .var("TAX_INCLUSIVE", "true")
        .var("TAX_RATES_BY_CATEGORY", "child=0");
    let mut stack = Stack::start_with(vat);
    let api = Api::new(&stack);
    let sid = api.create_showing(family_showing()).await;

    // Inclusive: the prices stay as listed (1200, 1200, 800); the adults'
    // 2400 holds 2400 × 20/120 = 400 of VAT, the child's ticket none.
    let (held, paid) = buy_family(&api, &sid, ["A1", "A2", "A3"]).await;
    assert_eq!(held.body["amount"]["amount"], 3200);
    let vat_line = json!({"name": "VAT", "rate_bps": null, "inclusive": true, "amount": 400});
    assert_eq!(
        held.body["tax"], vat_line,
        "rates differ: each ticket names its own"
    );
    assert_eq!(paid.body["tax"], vat_line);
    let sold = [
        (1200, 1000, 200, 2000),
        (1200, 1000, 200, 2000),
        (800, 800, 0, 0),
    ];
    assert_eq!(lines(&paid.body["tickets"]), sold);
    assert_eq!(charged(&stack).await, [3200]);
    // Square's order itemises the same: a line a seat, the film and its
    // time, the category, each rate its own tax, the same total.
    let (square, total, order) = square_lines(&stack).await;
    assert_eq!((square, total), (price_and_tax(&sold), 3200));
    assert_eq!(order["state"], "COMPLETED");
    assert_eq!(order["total_tax_money"]["amount"], 400);
    let first = &order["line_items"][0];
    assert!(
        first["name"]
            .as_str()
            .unwrap()
            .starts_with("My Neighbour Totoro, "),
        "{first}"
    );
    assert_eq!(first["variation_name"], "Adult");
    assert_eq!(
        order["taxes"].as_array().map(Vec::len),
        Some(1),
        "the untaxed child ticket blocks the one rate: {order}"
    );
    let page = order_page(&api, &paid).await;
    assert_eq!(page["order"]["tax"], vat_line);
    assert_eq!(page["order"]["amount"]["amount"], 3200);
    assert_eq!(lines(&page["tickets"]), sold);
    let adult = page["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seat"] == "A1")
        .unwrap();
    let ticket_page = stack.page_text(adult["page_url"].as_str().unwrap()).await;
    assert!(
        ticket_page.contains("Adult $12.00 including $2.00 VAT"),
        "{ticket_page}"
    );
    let csv = api.tickets_csv(&sid).await;
    let row = |seat: &str| {
        let start = format!("\"{seat}\",");
        csv.lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        row("A1").contains(",\"12.00\",\"10.00\",\"2.00\",\"20.00%\",\"USD\","),
        "{csv}"
    );
    assert!(
        row("A3").contains(",\"8.00\",\"8.00\",\"0.00\",\"0.00%\",\"USD\","),
        "{csv}"
    );

    // Added on top at 8.75 %: 2 × 1200 + 800 = 3200 takes 280 of tax,
    // shared 105 + 105 + 70, and the buyer is charged 3480.
    let sales = StackOptions::default()
        .var("TAX_RATE_BPS", "875")
        .var("TAX_NAME", "Sales tax")
        .var("TAX_INCLUSIVE", "false");
    stack.restart_with(sales);
    let api = Api::new(&stack);
    let (held, paid) = buy_family(&api, &sid, ["A4", "A5", "A6"]).await;
    let sales_line =
        json!({"name": "Sales tax", "rate_bps": 875, "inclusive": false, "amount": 280});
    assert_eq!(held.body["amount"]["amount"], 3480);
    assert_eq!(held.body["tax"], sales_line);
    assert_eq!(paid.body["amount"]["amount"], 3480);
    let sold = [
        (1305, 1200, 105, 875),
        (1305, 1200, 105, 875),
        (870, 800, 70, 875),
    ];
    assert_eq!(lines(&paid.body["tickets"]), sold);
    assert_eq!(charged(&stack).await[0], 3480);
    let (square, total, _) = square_lines(&stack).await;
    assert_eq!((square, total), (price_and_tax(&sold), 3480));
    let page = order_page(&api, &paid).await;
    assert_eq!(page["order"]["tax"], sales_line);
    assert_eq!(lines(&page["tickets"]), sold);

    // Refunding the child's ticket gives back what it cost, its tax with it.
    let order_id = paid.body["order_id"].as_str().unwrap();
    let child = page["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seat"] == "A6")
        .unwrap()["id"]
        .clone();
    let refund = api.refund_tickets(order_id, &[child]).await;
    assert_eq!(
        (refund.status, &refund.body["amount"]),
        (202, &json!(870)),
        "{:?}",
        refund.body
    );
    // Square refunds amounts, not items: the refund is the child's line
    // item's total, and its reason names the seat, the line item's uid.
    let requests = stack.square.get("/_control/requests").await;
    let sent = requests["requests"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|r| r["path"] == "/v2/refunds")
        .expect("a refund was asked for")["body"]
        .clone();
    assert_eq!(sent["amount_money"]["amount"], 870);
    assert_eq!(sent["reason"], "Refunded by the cinema: seat A6");

    // The first order keeps the tax it was sold under.
    let first = stack.d1_query(
        "SELECT o.tax_name, o.tax_inclusive, SUM(t.price_tax) AS tax FROM orders o \
         JOIN tickets t ON t.order_id = o.id WHERE o.tax_name = 'VAT' GROUP BY o.id",
    );
    assert_eq!(
        first,
        [json!({"tax_name": "VAT", "tax_inclusive": 1, "tax": 400})]
    );

    // A setting that would sell at a guessed price stops the Worker.
    stack.restart_with(StackOptions::default().var("TAX_RATE_BPS", "2000"));
    let health = Api::new(&stack).get("/api/health").await;
    assert_eq!(health.status, 503, "{:?}", health.body);
    assert_eq!(
        health.body["settings"],
        json!([{"name": "TAX_INCLUSIVE", "problem": "true (prices include the tax) or false (it is added on top)"}])
    );
    let refused = Api::new(&stack)
        .send(Method::GET, &format!("/api/showings/{sid}"), None, &[])
        .await;
    assert_eq!(refused.status, 503, "{:?}", refused.body);
}
