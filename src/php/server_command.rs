//! `Server::addCommand()` and `Server::command()`: named handlers registered
//! before `start()` (so every forked process has them), run in the process
//! `command()` names, with their string result sent back over the IPC
//! inboxes (`engine::ipc::Kind::Command`) and JSON-decoded by the caller.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use bytes::Bytes;
use ext_php_rs::error::php_error;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::types::{ZendCallable, ZendObject, Zval};

use super::constants::{SWOOLE_BASE, SWOOLE_PROCESS};
use super::zval::false_zval;
use crate::engine::{ipc, worker};

/// Per-thread state of this file, one thread-local for all (static TLS is
/// a budget: tools/tls-check.sh).
struct CommandState {
    /// By command id (the index).
    commands: RefCell<Vec<Command>>,
    /// The server object handlers get as their first argument; set by
    /// `addCommand()`, alive for as long as `start()` runs.
    server: Cell<*mut ZendObject>,
}

thread_local! {
    static COMMANDSTATE: Box<CommandState> = Box::new(CommandState {
        commands: RefCell::new(Vec::new()),
        server: Cell::new(std::ptr::null_mut()),
    });
}

fn with_commands<R>(f: impl FnOnce(&RefCell<Vec<Command>>) -> R) -> R {
    COMMANDSTATE.with(|s| f(&s.commands))
}

fn with_server<R>(f: impl FnOnce(&Cell<*mut ZendObject>) -> R) -> R {
    COMMANDSTATE.with(|s| f(&s.server))
}

/// `SWOOLE_SERVER_COMMAND_*`.
const MASTER: i64 = 1 << 1;
const REACTOR_THREAD: i64 = 1 << 2;
const EVENT_WORKER: i64 = 1 << 3;
const TASK_WORKER: i64 = 1 << 4;

/// `SWOOLE_ERROR_*` codes `command()` leaves in `swoole_last_error()`.
const ERROR_INVALID_PARAMS: i64 = 505;
const ERROR_OPERATION_NOT_SUPPORT: i64 = 507;
const ERROR_SERVER_INVALID_COMMAND: i64 = 9012;

/// How long `command()` waits for another process's result.
const WAIT: Duration = Duration::from_secs(10);

struct Command {
    name: String,
    accepted: i64,
    callback: Zval,
}

/// At request shutdown: the handlers go while PHP can still free them.
pub fn shutdown() {
    ipc::set_command_handler(None);
    let gone = with_commands(|c| std::mem::take(&mut *c.borrow_mut()));
    drop(gone);
    with_server(|s| s.set(std::ptr::null_mut()));
}

/// `Server::addCommand($name, $accepted_process_types, $callback)`.
pub fn add(
    server: *mut ZendObject,
    started: bool,
    name: String,
    accepted: i64,
    callback: &Zval,
) -> bool {
    if started {
        php_error(&ErrorType::Warning, "server is running, can't add command");
        return false;
    }
    if accepted & REACTOR_THREAD != 0 {
        php_error(
            &ErrorType::Warning,
            "only support worker/task_worker process",
        );
        return false;
    }
    if !callback.is_callable() {
        php_error(
            &ErrorType::Warning,
            "Argument #3 ($callback) must be a valid callback",
        );
        return false;
    }
    let added = with_commands(|c| {
        let mut c = c.borrow_mut();
        if c.iter().any(|x| x.name == name) {
            return false;
        }
        c.push(Command {
            name,
            accepted,
            callback: callback.shallow_clone(),
        });
        true
    });
    if added {
        with_server(|s| s.set(server));
        ipc::set_command_handler(Some(std::rc::Rc::new(run)));
    }
    added
}

/// Runs command `id` here: `$callback($server, $json)`; a result that is not
/// a string becomes Swoole's error object.
fn run(id: i64, data: Bytes) -> Bytes {
    let cb = with_commands(|c| {
        c.borrow()
            .get(id as usize)
            .map(|x| x.callback.shallow_clone())
    });
    let Some(cb) = cb else {
        crate::rlog!(Error, "Unknown command[{id}]");
        return Bytes::new();
    };
    let mut server = Zval::new();
    let obj = with_server(|s| s.get());
    if !obj.is_null() {
        // SAFETY: the server object outlives `start()`, which is what runs
        // every command; set_object adds a reference.
        server.set_object(unsafe { &mut *obj });
    }
    let mut args = [server, super::http_request::bytes_zval(&data)];
    match super::boundary::call(&cb, &mut args) {
        Ok(r) => match r.zend_str() {
            Some(s) => Bytes::copy_from_slice(s.as_bytes()),
            None => Bytes::from_static(br#"{"data": "wrong return type", "code": -2}"#),
        },
        Err(e) => {
            if let super::boundary::CallError::Exit(code)
            | super::boundary::CallError::Fatal(code) = e
            {
                // PHP cannot go on in this worker (a no-op in the master).
                crate::engine::worker::halt::poison(code);
            }
            php_error(&ErrorType::Warning, "Swoole\\Server: command handler error");
            Bytes::from_static(br#"{"data": "failed to call function", "code": -1}"#)
        }
    }
}

fn fail(code: i64, msg: &str) -> Zval {
    crate::rlog!(Notice, "{msg}");
    super::errors::set_last_error(code);
    false_zval()
}

/// `Server::command($name, $process_id, $process_type, $data, $json_decode)`.
#[allow(clippy::too_many_arguments)]
pub fn command(
    started: bool,
    mode: i64,
    reactor_num: Option<i64>,
    name: &str,
    mut process_id: i64,
    mut process_type: i64,
    data: &Zval,
    json_decode: bool,
) -> Zval {
    if !started {
        php_error(&ErrorType::Warning, "server is not running");
        return false_zval();
    }
    let Some((id, accepted)) = with_commands(|c| {
        c.borrow()
            .iter()
            .position(|x| x.name == name)
            .map(|i| (i, c.borrow()[i].accepted))
    }) else {
        return fail(
            ERROR_SERVER_INVALID_COMMAND,
            &format!("Unknown command[{name}]"),
        );
    };
    let me = worker::current_worker_id();
    if mode == SWOOLE_PROCESS && me >= 0 {
        return fail(
            ERROR_INVALID_PARAMS,
            "command() can only be used in master process",
        );
    }
    if mode == SWOOLE_BASE && me != 0 {
        return fail(
            ERROR_INVALID_PARAMS,
            "command() can only be used in worker process 0",
        );
    }
    if mode == SWOOLE_BASE && process_type == EVENT_WORKER && process_id == 0 {
        process_type = MASTER;
    }
    if mode == SWOOLE_PROCESS && process_type == REACTOR_THREAD && Some(process_id) == reactor_num {
        process_type = MASTER;
        process_id = 0;
    }
    if process_type & accepted == 0 {
        return fail(ERROR_OPERATION_NOT_SUPPORT, "unsupported [process_type]");
    }
    let Some(json) = json_encode(data) else {
        return false_zval();
    };
    let result = match process_type {
        MASTER => run(id as i64, json),
        EVENT_WORKER | TASK_WORKER => {
            let (n, base) = if process_type == EVENT_WORKER {
                (ipc::worker_num(), 0)
            } else {
                (ipc::task_worker_num(), ipc::worker_num())
            };
            if process_id < 0 || process_id as usize >= n {
                let what = if process_type == EVENT_WORKER {
                    "worker_id"
                } else {
                    "task_worker_id"
                };
                return fail(
                    ERROR_INVALID_PARAMS,
                    &format!("invalid {what}[{process_id}]"),
                );
            }
            match ipc::command(base + process_id as usize, id as i64, json, WAIT) {
                Some(r) => r,
                None => return false_zval(),
            }
        }
        // The manager (and the reactor threads, which addCommand() refuses)
        // run no commands here: see docs/compat.md.
        _ => return fail(ERROR_OPERATION_NOT_SUPPORT, "unsupported [process_type]"),
    };
    if !json_decode {
        return super::http_request::bytes_zval(&result);
    }
    if &result[..] == b"null" {
        return Zval::new();
    }
    let text = super::http_request::bytes_zval(&result);
    let assoc = true;
    match ZendCallable::try_from_name("json_decode").and_then(|f| f.try_call(vec![&text, &assoc])) {
        // json_decode()'s null for invalid JSON: false, as Swoole's
        // php_json_decode failure.
        Ok(z) if !z.is_null() => z,
        _ => false_zval(),
    }
}

fn json_encode(data: &Zval) -> Option<Bytes> {
    let z = ZendCallable::try_from_name("json_encode")
        .and_then(|f| f.try_call(vec![data]))
        .ok()?;
    z.zend_str().map(|s| Bytes::copy_from_slice(s.as_bytes()))
}
