//! The ticket page: its QR code, drawn on the server, decodes (with a real
//! QR decoder) back to the ticket's signed code.

use e2e::{sixteen_seat_room, Api, Stack};

/// Renders an SVG to pixels and reads the QR code in it.
fn decode_qr(svg: &str) -> String {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default()).expect("an SVG");
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
    let pixels = pixmap.data().to_vec();
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(w, h, |x, y| {
        let i = (y * w + x) * 4;
        ((u16::from(pixels[i]) + u16::from(pixels[i + 1]) + u16::from(pixels[i + 2])) / 3) as u8
    });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code on the page");
    grids[0].decode().expect("the QR code decodes").1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_qr_code_on_the_ticket_page_decodes_to_the_ticket_code() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["B6"], None).await;
    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await.body;
    let ticket = &order["tickets"][0];
    let page = reqwest::get(stack.url(ticket["page_url"].as_str().unwrap()))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Paris, Texas")
            && html.contains("<strong>Seat B6</strong>")
            && html.contains("Valid"),
        "{html}"
    );
    // The cinema's name, and the time on its own clock (Europe/London).
    assert!(html.contains("Showtime Cinema"), "{html}");
    assert!(html.contains("Sat 5 Dec 2099, 19:30 GMT"), "{html}");

    // In summer the same zone is an hour ahead of UTC, and says so.
    let mut summer = sixteen_seat_room(None);
    summer["starts_at"] = serde_json::json!("2099-07-05T19:30:00Z");
    let summer_sid = api.create_showing(summer).await;
    let summer_paid = api.buy(&summer_sid, &["A1"]).await;
    let summer_order = api
        .get(summer_paid.body["order_url"].as_str().unwrap())
        .await
        .body;
    let summer_page = stack
        .page_text(summer_order["tickets"][0]["page_url"].as_str().unwrap())
        .await;
    assert!(
        summer_page.contains("5 Jul 2099, 20:30 BST"),
        "{summer_page}"
    );
    let svg = &html[html.find("<svg").expect("an SVG")..html.find("</svg>").expect("its end") + 6];
    assert_eq!(decode_qr(svg), ticket["code"].as_str().unwrap());

    // Without the order's key there is no page.
    let id = ticket["id"].as_str().unwrap();
    let forged = reqwest::get(stack.url(&format!("/tickets/{id}?key=AAAAAAAAAAAAAAAAAAAAAA")))
        .await
        .unwrap();
    assert_eq!(forged.status(), 404);
}
