//! `engine::Error`: the one error type the engine returns.
//!
//! Like hyper's error, the kind is private and callers ask `is_*()` questions;
//! the message text is not a contract. The PHP layer decides which PHP
//! exception class and message a user sees.

use std::fmt;
use std::io;

/// An engine failure: what went wrong and, where there is one, the OS error.
#[derive(Debug)]
pub struct Error {
    kind: Kind,
    context: String,
    source: Option<io::Error>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Binding or listening on an address failed.
    Listen,
    /// A setting has the wrong type or an impossible value.
    Config,
    /// fork(), waitpid() or a signal call failed.
    Process,
    /// Any other I/O failure.
    Io,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn listen(addr: impl fmt::Display, source: io::Error) -> Self {
        Error {
            kind: Kind::Listen,
            context: format!("failed to listen server port[{addr}]"),
            source: Some(source),
        }
    }

    pub fn config(msg: impl Into<String>) -> Self {
        Error {
            kind: Kind::Config,
            context: msg.into(),
            source: None,
        }
    }

    pub fn process(what: impl Into<String>, source: io::Error) -> Self {
        Error {
            kind: Kind::Process,
            context: what.into(),
            source: Some(source),
        }
    }

    pub fn io(what: impl Into<String>, source: io::Error) -> Self {
        Error {
            kind: Kind::Io,
            context: what.into(),
            source: Some(source),
        }
    }

    pub fn is_listen(&self) -> bool {
        self.kind == Kind::Listen
    }

    pub fn is_config(&self) -> bool {
        self.kind == Kind::Config
    }

    pub fn is_process(&self) -> bool {
        self.kind == Kind::Process
    }

    /// The OS error number, when the failure came from a system call.
    pub fn os_code(&self) -> Option<i32> {
        self.source.as_ref().and_then(|e| e.raw_os_error())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            // Swoole's shape: "..., Error: Address already in use[98]"
            Some(src) => match src.raw_os_error() {
                Some(code) => {
                    let text = io::Error::from_raw_os_error(code).to_string();
                    let text = text.split(" (os error").next().unwrap_or(&text).to_string();
                    write!(f, "{}, Error: {}[{}]", self.context, text, code)
                }
                None => write!(f, "{}, Error: {}", self.context, src),
            },
            None => f.write_str(&self.context),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_error_names_address_and_os_error() {
        let e = Error::listen(
            "127.0.0.1:80",
            io::Error::from_raw_os_error(libc::EADDRINUSE),
        );
        assert!(e.is_listen());
        assert_eq!(e.os_code(), Some(libc::EADDRINUSE));
        let s = e.to_string();
        assert!(s.contains("127.0.0.1:80"), "{s}");
        assert!(s.contains("Address already in use[98]"), "{s}");
    }
}
