//! The map pushed to watchers at most once a period, the alarm sending
//! what a period held back, and a restart starting again from the whole
//! map. What each push says is checked in `desk/src/live.rs`.

use crate::check_live;
use desk::Settings;

#[test]
fn changes_within_a_second_go_together_when_the_alarm_fires() {
    check_live(
        Settings::default(),
        r#"
        @0 hold ana h1 A1             => 201 held A1 until 300000; push 1
        @100 hold bob h2 A2           => 201 held A2 until 300100
        @200 release ana h1           => 204
        @200 next                     => Some(1000)
        @500 watch                    => {"version":1,"codes":"haaaaaaa"}
        @1000 alarm                   => push 3
        @1000 next                    => Some(300100)
        @5000 hold cy h3 A3           => 201 held A3 until 305000; push 4
        @5000 restart                 => restarted
        @5100 hold dee h4 A4          => 201 held A4 until 305100; push 5
        @5200 release dee h4          => 204
        @5200 next                    => Some(6100)
        "#,
    );
}
