//! The door PIN window and the per-address hold rate, both kept as rows so
//! an object evicted between tries forgets nothing.

use crate::{check, check_with};
use desk::{RateLimit, Settings};

#[test]
fn ten_wrong_pins_lock_the_door_for_ten_minutes_even_across_restarts() {
    let mut script = String::new();
    for i in 0..10 {
        script += &format!("@{i} door wrong => 401 unauthorized\n");
        if i == 4 {
            script += "@4 restart => restarted\n";
        }
    }
    script += "
        @20 restart                   => restarted
        @30 door right                => 429 door_pin_locked retry 600
        @599999 door right            => 429 door_pin_locked retry 1
        @600000 door right            => 204
        @600001 door wrong            => 401 unauthorized
        @600002 door wrong            => 401 unauthorized
        @600003 rows door_failures    => 9
    ";
    check(&script);
}

#[test]
fn an_address_gets_a_burst_of_holds_then_one_a_rate_even_across_a_restart() {
    let settings = Settings {
        hold_rate: RateLimit {
            burst: 2,
            per_minute: 6,
        },
        ..Settings::default()
    };
    check_with(
        settings,
        r"
        @0 hold ana h1 from=9.9.9.9 A1    => 201 held A1 until 300000; announce 1
        @1 release ana h1                 => 204; announce 2
        @2 restart                        => restarted
        @3 hold ana h2 from=9.9.9.9 A1    => 201 held A1 until 300003; announce 3
        @4 release ana h2                 => 204; announce 4
        @5 hold ana h3 from=9.9.9.9 A1    => 429 rate_limited retry 10
        @6 hold bob h4 from=8.8.8.8 A1    => 201 held A1 until 300006; announce 5
        @10000 hold ana h5 from=9.9.9.9 A2 => 201 held A2 until 310000; announce 6
        ",
    );
}
