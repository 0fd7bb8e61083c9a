//! A child process in its own process group, so that stopping it also stops
//! everything it started (wrangler starts workerd).

use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub struct Group {
    child: Child,
}

impl Group {
    pub fn spawn(mut command: Command) -> std::io::Result<Group> {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
        // If the test process dies without unwinding, the kernel sends the
        // leader SIGTERM, and wrangler stops workerd on its way out.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        Ok(Group {
            child: command.spawn()?,
        })
    }

    /// The leader's pid, which is also the group's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// SIGTERM to the whole group, then SIGKILL to whatever is left.
    pub fn stop(&mut self) {
        let pgid = self.child.id() as i32;
        signal_group(pgid, libc::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && group_alive(pgid) {
            let _ = self.child.try_wait();
            std::thread::sleep(Duration::from_millis(50));
        }
        signal_group(pgid, libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Group {
    /// SIGKILL to the whole group at once, for a server nothing more is
    /// asked of.
    pub fn kill(&mut self) {
        signal_group(self.child.id() as i32, libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.stop();
    }
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; it has
    // no memory-safety preconditions.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

fn group_alive(pgid: i32) -> bool {
    // Signal 0 checks for existence without sending anything.
    unsafe { libc::kill(-pgid, 0) == 0 }
}
