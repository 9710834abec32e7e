//! Reading a request body: bounded in size (`package_max_length`), in time
//! (`http_body_timeout`, from the end of the head to the last byte, so a
//! stalled body and one trickling a byte at a time are both cut), and in
//! memory: past `http_body_buffer_size` what has arrived so far goes to an
//! unlinked file in `upload_tmp_dir` (as nginx's `client_body_buffer_size`),
//! so a slow or stalled upload holds at most that much RAM. The whole body
//! is read back into memory once it is complete, for the handler.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Over `package_max_length`: 413.
    TooLarge,
    /// Broken framing or the client went away: 400.
    Io,
    /// Not complete within `http_body_timeout`: 408.
    Timeout,
    /// The spool file could not be written: 500.
    Spool,
}

/// The limits of one body, from the server settings.
pub struct Limits<'a> {
    pub max: usize,
    pub timeout: Duration,
    /// Bytes kept in memory before the body is spooled to a file.
    pub memory: usize,
    pub tmp_dir: &'a Path,
}

/// Reads the whole body within `limits`.
pub async fn read(body: Incoming, limits: Limits<'_>) -> Result<Bytes, BodyError> {
    match tokio::time::timeout(limits.timeout, collect(body, &limits)).await {
        Ok(r) => r,
        Err(_) => Err(BodyError::Timeout),
    }
}

/// The spool: an unlinked file (so nothing is left behind, whatever
/// happens to the worker), and the bytes written to it.
struct Spool {
    file: File,
    len: usize,
}

impl Spool {
    fn create(dir: &Path) -> std::io::Result<Spool> {
        let path = super::form::save_upload(dir, b"")?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path);
        let _ = std::fs::remove_file(&path);
        Ok(Spool {
            file: file?,
            len: 0,
        })
    }

    fn write(&mut self, data: &[u8]) -> std::io::Result<()> {
        // A local file: a short blocking write, as the static handler's reads.
        self.file.write_all(data)?;
        self.len += data.len();
        Ok(())
    }

    fn into_bytes(mut self) -> std::io::Result<Bytes> {
        self.file.seek(SeekFrom::Start(0))?;
        let mut v = Vec::with_capacity(self.len);
        self.file.read_to_end(&mut v)?;
        Ok(Bytes::from(v))
    }
}

async fn collect(mut body: Incoming, limits: &Limits<'_>) -> Result<Bytes, BodyError> {
    let mut buf = BytesMut::new();
    let mut spool: Option<Spool> = None;
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Io)?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total += data.len();
        if total > limits.max {
            return Err(BodyError::TooLarge);
        }
        match &mut spool {
            Some(s) => s.write(&data).map_err(|_| BodyError::Spool)?,
            None if buf.len() + data.len() > limits.memory => {
                let mut s = Spool::create(limits.tmp_dir).map_err(|_| BodyError::Spool)?;
                s.write(&buf).map_err(|_| BodyError::Spool)?;
                s.write(&data).map_err(|_| BodyError::Spool)?;
                buf = BytesMut::new();
                spool = Some(s);
            }
            None => buf.extend_from_slice(&data),
        }
    }
    match spool {
        Some(s) => s.into_bytes().map_err(|_| BodyError::Spool),
        None => Ok(buf.freeze()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spool_round_trips_and_leaves_no_file() {
        let dir = std::env::temp_dir().join(format!("rsw_spool_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut s = Spool::create(&dir).expect("spool");
        s.write(b"hello ").expect("w");
        s.write(b"world").expect("w");
        assert_eq!(std::fs::read_dir(&dir).expect("ls").count(), 0);
        assert_eq!(&s.into_bytes().expect("read")[..], b"hello world");
        let _ = std::fs::remove_dir(&dir);
    }
}
