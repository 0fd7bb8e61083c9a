//! The map pushed to watchers at most once a period, the alarm sending
//! what a period held back, a restart starting again from the whole map,
//! and a new watcher missing no change. How a push is worded is checked in
//! `desk/src/live.rs`.

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
        @5000 next                    => Some(0)
        @5100 hold dee h4 A4          => 201 held A4 until 305100; push 5
        @5100 pushed                  => {"version":5,"codes":"ahhhaaaa"}
        @5200 release dee h4          => 204
        @5200 next                    => Some(6100)
        "#,
    );
}

/// A watcher who comes once a held-back push is due, before the alarm has
/// sent it: the push goes to those already watching, and the newcomer
/// starts from the map it carries, so neither misses the change.
#[test]
fn a_new_watcher_starts_from_the_push_that_was_due_when_it_came() {
    check_live(
        Settings::default(),
        r#"
        @0 hold ana h1 A1             => 201 held A1 until 300000; push 1
        @100 hold bob h2 A2           => 201 held A2 until 300100
        @100 next                     => Some(1000)
        @1200 watch                   => {"version":2,"codes":"hhaaaaaa"}; push 2
        @1200 pushed                  => {"version":2,"codes":"hhaaaaaa"}
        @1200 next                    => Some(300000)
        @1300 alarm                   =>
        "#,
    );
}

/// After a restart the desk no longer knows what its watchers were sent:
/// a watcher who comes then has the whole map pushed to those already
/// watching, before it starts from that map.
#[test]
fn after_a_restart_a_new_watcher_does_not_hide_a_change_from_those_watching() {
    check_live(
        Settings::default(),
        r#"
        @0 hold ana h1 A1             => 201 held A1 until 300000; push 1
        @100 hold bob h2 A2           => 201 held A2 until 300100
        @200 restart                  => restarted
        @300 watch                    => {"version":2,"codes":"hhaaaaaa"}; push 2
        @300 pushed                   => {"version":2,"codes":"hhaaaaaa"}
        @300 next                     => Some(300000)
        "#,
    );
}
