//! Layouts as immutable versions: a showing names the version it sells,
//! the version's layout is served for ever with a year's cache, an edit
//! makes a new version and leaves the old one as it was, and the seat map
//! comes apart from the layout.

use e2e::{sixteen_seat_room, Api, Method, Stack};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layout_is_served_by_its_version_for_ever_and_an_edit_makes_a_new_one() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let room = sixteen_seat_room(None);
    let sid = api.create_showing(room.clone()).await;
    let twin = api.create_showing(room.clone()).await;

    let public = api.get(&format!("/api/showings/{sid}")).await;
    assert_eq!(public.status, 200, "{:?}", public.body);
    assert!(
        public.body["showing"].get("layout").is_none(),
        "the layout comes by its version: {:?}",
        public.body
    );
    assert!(public.body["availability"]["seats"]["A1"].is_string());
    let version = public.body["showing"]["layout_version"]
        .as_str()
        .unwrap()
        .to_string();
    let same = api.get(&format!("/api/showings/{twin}")).await;
    assert_eq!(
        same.body["showing"]["layout_version"], version,
        "one layout, one version"
    );

    let served = api.get(&format!("/api/layouts/{version}")).await;
    assert_eq!(served.status, 200, "{version}: {:?}", served.body);
    assert_eq!(
        served.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(served.body, room["layout"]);

    // An edit before any sale: a new version; the old one unchanged.
    let mut bigger = room.clone();
    bigger["layout"]["rows"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "C", "seats": 4}));
    let path = format!("/api/admin/showings/{sid}");
    let edited = api.admin(Method::PUT, &path, Some(bigger.clone())).await;
    assert_eq!(edited.status, 200, "{:?}", edited.body);
    let after = api.get(&format!("/api/showings/{sid}")).await;
    let new_version = after.body["showing"]["layout_version"].as_str().unwrap();
    assert_ne!(new_version, version);
    let new_layout = api.get(&format!("/api/layouts/{new_version}")).await;
    assert_eq!(new_layout.body, bigger["layout"]);
    let old = api.get(&format!("/api/layouts/{version}")).await;
    assert_eq!(old.body, room["layout"], "a version never changes");

    for missing in [
        "l000000000000000000000000",
        "not%20a%20version",
        "x".repeat(60).as_str(),
    ] {
        let reply = api.get(&format!("/api/layouts/{missing}")).await;
        assert_eq!(reply.status, 404, "{missing}: {:?}", reply.body);
        assert_ne!(
            reply.header("cache-control"),
            Some("public, max-age=31536000, immutable")
        );
    }
}
