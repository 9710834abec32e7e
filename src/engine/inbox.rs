//! The worker side of IPC: turns each message read from this process's
//! inbox (`ipc`) into a hook call (tasks, results, pipe messages) or a
//! registry call (`conns`: a `Send` or `Close` for a connection we own),
//! and answers `Server::command()`.

use std::rc::Rc;

use super::conns;
use super::hooks::{Hooks, Outcome};
use super::ipc::{self, Kind, Msg};

/// Hands a message to the right hook or connection (what every worker's
/// loop does with its inbox).
pub fn dispatch(hooks: &Rc<dyn Hooks>, m: Msg) -> Outcome {
    match m.kind {
        Kind::Task => {
            super::stats::on_task_taken();
            hooks.on_task(m.id, m.src, m.data, m.flags)
        }
        Kind::Finish => hooks.on_finish(m.id, m.src, m.data, m.flags),
        Kind::Send => {
            conns::send(m.id, m.data);
            Outcome::Done
        }
        Kind::Close => {
            conns::close_after(m.id, m.arg != 0, m.data);
            Outcome::Done
        }
        Kind::Pipe => hooks.on_pipe_message(m.src, m.data, m.flags),
        Kind::Command => {
            let result = ipc::run_command(m.arg >> 16, m.data).unwrap_or_default();
            let reply = Msg {
                kind: Kind::CommandReply,
                flags: 0,
                src: 0,
                id: m.id,
                arg: 0,
                data: result,
            };
            if let Err(e) = ipc::send((m.arg & 0xffff) as usize, reply) {
                crate::rlog!(Warning, "command result: {e}");
            }
            Outcome::Done
        }
        // A result nobody waits for any more (its command timed out).
        Kind::CommandReply => Outcome::Done,
    }
}
