//! The web app in a real headless Chromium (Playwright), against the real
//! stack. The browser script lives in `tests/browser/`.

use std::process::Command;

use e2e::{sixteen_seat_room, Api, Stack};

fn run_browser_script(script: &str, stack: &Stack, showing_id: &str) {
    let root = e2e::repo_root();
    let shots = root.join("test-output/screenshots");
    std::fs::create_dir_all(&shots).expect("screenshot folder");
    let output = Command::new(root.join("node_modules/.bin/node"))
        .arg(root.join("tests/browser").join(script))
        .env("BASE_URL", &stack.base_url)
        .env("SHOWING_ID", showing_id)
        .env("SCREENSHOT_DIR", &shots)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "{script} failed:\n{}{}\nserver log:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        stack.log_tail()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_picks_two_seats_pays_and_sees_tickets_with_qr_codes() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    run_browser_script("buyer.mjs", &stack, &sid);
    let map = api.seat_map(&sid).await;
    for seat in ["A3", "A4", "B5", "B6"] {
        assert_eq!(map[seat], "sold", "{seat}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_buyers_race_for_a_seat_while_a_third_watches_the_map() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    run_browser_script("race.mjs", &stack, &sid);
    assert_eq!(api.seat_map(&sid).await["A1"], "sold");
}
