//! TLS for the clients (`Coroutine\Http\Client`, `Coroutine\Client`,
//! `Coroutine\Socket`, `Swoole\Client`, the `ssl://` stream hook): rustls
//! client configurations built from Swoole's `ssl_*` settings, a certificate
//! verifier that follows Swoole's rules (no check unless `ssl_verify_peer`,
//! `ssl_allow_self_signed`), a non-blocking sans-io session for raw sockets,
//! and certificates as PEM.
//!
//! Crypto provider: rustls' `ring`. Trust: `ssl_cafile`/`ssl_capath` when
//! given, else the system store (rustls-native-certs, loaded once).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::IpAddr;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::{
    CertificateError, ClientConfig, ClientConnection, Connection, DigitallySignedStruct,
    RootCertStore, ServerConfig, ServerConnection,
};

/// `SW_ERROR_SSL_EMPTY_PEER_CERTIFICATE`.
pub const ERR_EMPTY_PEER_CERT: i32 = 1013;
/// `SW_ERROR_SSL_VERIFY_FAILED`.
pub const ERR_VERIFY_FAILED: i32 = 1014;
/// `SW_ERROR_SSL_HANDSHAKE_FAILED`.
pub const ERR_HANDSHAKE_FAILED: i32 = 1018;
/// `SW_ERROR_SSL_CREATE_CONTEXT_FAILED`.
pub const ERR_CREATE_CONTEXT_FAILED: i32 = 1019;
/// `SWOOLE_SSL_TLSv1_2` / `SWOOLE_SSL_TLSv1_3` bits of `ssl_protocols`.
const PROTO_TLS12: i64 = 32;
const PROTO_TLS13: i64 = 64;

/// The `ssl_*` settings a client acts on. Equal options share one
/// `ClientConfig` (and so its session cache: resumed handshakes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct TlsOptions {
    pub verify_peer: bool,
    pub allow_self_signed: bool,
    /// `ssl_host_name`: `Some("")` turns SNI off.
    pub host_name: Option<String>,
    pub cafile: Option<String>,
    pub capath: Option<String>,
    pub cert_file: Option<String>,
    pub key_file: Option<String>,
    /// `ssl_client_cert_file`: the CAs a server side checks clients with.
    pub client_cert_file: Option<String>,
    /// `ssl_protocols` (0 = TLS 1.2 and 1.3).
    pub protocols: i64,
    /// ALPN protocols offered, in order.
    pub alpn: Vec<Vec<u8>>,
    /// `ssl_verify_depth`: most intermediate CAs the peer may present.
    pub verify_depth: Option<i64>,
}

fn provider() -> Arc<CryptoProvider> {
    static P: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    Arc::clone(P.get_or_init(|| Arc::new(rustls::crypto::ring::default_provider())))
}

/// The system's trusted roots, loaded once per process.
fn native_roots() -> Arc<RootCertStore> {
    static R: OnceLock<Arc<RootCertStore>> = OnceLock::new();
    Arc::clone(R.get_or_init(|| {
        let mut store = RootCertStore::empty();
        let found = rustls_native_certs::load_native_certs();
        let _ = store.add_parsable_certificates(found.certs);
        Arc::new(store)
    }))
}

fn read_certs(path: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    rustls_pemfile::certs(&mut io::BufReader::new(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{path}: {e}"))
}

fn read_key(path: &str) -> Result<PrivateKeyDer<'static>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    rustls_pemfile::private_key(&mut io::BufReader::new(f))
        .map_err(|e| format!("{path}: {e}"))?
        .ok_or_else(|| format!("{path}: no private key"))
}

fn roots(o: &TlsOptions) -> Result<Arc<RootCertStore>, String> {
    if o.cafile.is_none() && o.capath.is_none() {
        return Ok(native_roots());
    }
    let mut store = RootCertStore::empty();
    if let Some(f) = &o.cafile {
        store.add_parsable_certificates(read_certs(f)?);
    }
    if let Some(dir) = &o.capath {
        let rd = std::fs::read_dir(dir).map_err(|e| format!("{dir}: {e}"))?;
        for ent in rd.flatten() {
            if let Some(p) = ent.path().to_str() {
                if let Ok(c) = read_certs(p) {
                    store.add_parsable_certificates(c);
                }
            }
        }
    }
    Ok(Arc::new(store))
}

/// `ssl_cafile`'s certificates (empty without one, or unreadable).
fn cafile_certs(o: &TlsOptions) -> Vec<CertificateDer<'static>> {
    o.cafile
        .as_deref()
        .and_then(|f| read_certs(f).ok())
        .unwrap_or_default()
}

/// Swoole's verification: none unless `ssl_verify_peer`; then the chain
/// against the trusted roots, a self-signed leaf only with
/// `ssl_allow_self_signed`, and the name when it is a DNS name.
#[derive(Debug)]
struct Verifier {
    verify_peer: bool,
    allow_self_signed: bool,
    inner: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
    depth: Option<i64>,
    /// `ssl_cafile`'s certificates, for a v1 leaf (`tls_v1`).
    trusted: Vec<CertificateDer<'static>>,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if !self.verify_peer {
            return Ok(ServerCertVerified::assertion());
        }
        if crate::engine::tls::v1::chain_too_long(self.depth, intermediates.len()) {
            // OpenSSL: "certificate chain too long".
            return Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ));
        }
        let r = match &self.inner {
            Some(v) => v.verify_server_cert(end_entity, intermediates, server_name, ocsp, now),
            None => Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            )),
        };
        let r = match r {
            // An X.509 v1 leaf (webpki refuses them; OpenSSL does not).
            Err(rustls::Error::InvalidCertificate(_))
                if crate::engine::tls::v1::verify_leaf(end_entity.as_ref(), &self.trusted, now)
                    == Some(Ok(())) =>
            {
                Ok(ServerCertVerified::assertion())
            }
            r => r,
        };
        match r {
            Ok(v) => Ok(v),
            // An IP without `ssl_host_name`: the chain only (as Swoole).
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if matches!(server_name, ServerName::IpAddress(_)) => {
                Ok(ServerCertVerified::assertion())
            }
            // OpenSSL's "self signed certificate" (depth zero), whichever
            // error webpki met first (an `openssl req -x509` certificate is
            // also a CA, which webpki refuses as a leaf).
            Err(rustls::Error::InvalidCertificate(_))
                if self.allow_self_signed
                    && intermediates.is_empty()
                    && is_self_signed(end_entity) =>
            {
                Ok(ServerCertVerified::assertion())
            }
            Err(e) => Err(e),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crate::engine::tls::v1::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        crate::engine::tls::v1::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// One DER element: (tag, header length, total length) at the start of `d`.
fn der_elem(d: &[u8]) -> Option<(u8, usize, usize)> {
    let tag = *d.first()?;
    let l0 = *d.get(1)? as usize;
    let (hl, len) = if l0 < 0x80 {
        (2, l0)
    } else {
        let n = l0 & 0x7f;
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for i in 0..n {
            len = (len << 8) | *d.get(2 + i)? as usize;
        }
        (2 + n, len)
    };
    (hl + len <= d.len()).then_some((tag, hl, hl + len))
}

/// The issuer and subject names of a certificate, as DER.
fn issuer_subject(cert: &[u8]) -> Option<(&[u8], &[u8])> {
    let (_, hl, _) = der_elem(cert)?; // Certificate
    let tbs = &cert[hl..];
    let (_, thl, tlen) = der_elem(tbs)?; // TBSCertificate
    let mut rest = &tbs[thl..tlen];
    let mut fields = Vec::with_capacity(6);
    while fields.len() < 6 && !rest.is_empty() {
        let (tag, _, total) = der_elem(rest)?;
        if fields.is_empty() && tag == 0xa0 {
            // The optional version.
            rest = &rest[total..];
            continue;
        }
        fields.push(&rest[..total]);
        rest = &rest[total..];
    }
    // serial, signature, issuer, validity, subject
    Some((fields.get(2)?, fields.get(4)?))
}

fn is_self_signed(cert: &CertificateDer<'_>) -> bool {
    issuer_subject(cert.as_ref()).is_some_and(|(i, s)| i == s)
}

/// The shared config for `o` (built once per distinct options).
pub fn client_config(o: &TlsOptions) -> Result<Arc<ClientConfig>, String> {
    static CACHE: OnceLock<Mutex<HashMap<TlsOptions, Arc<ClientConfig>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(c) = cache.lock().ok().and_then(|m| m.get(o).cloned()) {
        return Ok(c);
    }
    let cfg = Arc::new(build_config(o)?);
    if let Ok(mut m) = cache.lock() {
        if m.len() > 64 {
            m.clear();
        }
        m.insert(o.clone(), Arc::clone(&cfg));
    }
    Ok(cfg)
}

fn versions(o: &TlsOptions) -> Result<Vec<&'static rustls::SupportedProtocolVersion>, String> {
    let mut v: Vec<&'static rustls::SupportedProtocolVersion> = Vec::new();
    if o.protocols == 0 || o.protocols & PROTO_TLS13 != 0 {
        v.push(&rustls::version::TLS13);
    }
    if o.protocols == 0 || o.protocols & PROTO_TLS12 != 0 {
        v.push(&rustls::version::TLS12);
    }
    if v.is_empty() {
        return Err("ssl_protocols: no protocol this build supports (TLS 1.2, TLS 1.3)".into());
    }
    Ok(v)
}

/// The server side of an accepted `Coroutine\Socket` (`ssl_cert_file`,
/// `ssl_key_file`; with `ssl_verify_peer` a client certificate signed by
/// `ssl_client_cert_file` is required).
pub fn server_config(o: &TlsOptions) -> Result<Arc<ServerConfig>, String> {
    static CACHE: OnceLock<Mutex<HashMap<TlsOptions, Arc<ServerConfig>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(c) = cache.lock().ok().and_then(|m| m.get(o).cloned()) {
        return Ok(c);
    }
    let (Some(cert), Some(key)) = (&o.cert_file, &o.key_file) else {
        return Err("ssl_cert_file and ssl_key_file are required on the server side".into());
    };
    let p = provider();
    let b = ServerConfig::builder_with_provider(Arc::clone(&p))
        .with_protocol_versions(&versions(o)?)
        .map_err(|e| e.to_string())?;
    let b = if o.verify_peer {
        let mut store = RootCertStore::empty();
        let mut trusted = Vec::new();
        for f in [&o.client_cert_file, &o.cafile].into_iter().flatten() {
            trusted.extend(read_certs(f)?);
        }
        store.add_parsable_certificates(trusted.iter().cloned());
        let v = WebPkiClientVerifier::builder_with_provider(Arc::new(store), Arc::clone(&p))
            .build()
            .map_err(|e| e.to_string())?;
        b.with_client_cert_verifier(Arc::new(crate::engine::tls::v1::ClientVerifier {
            inner: v,
            depth: None,
            roots: trusted,
            provider: Arc::clone(&p),
        }))
    } else {
        b.with_no_client_auth()
    };
    // Not `with_single_cert`: its key check parses the certificate with
    // webpki, which refuses X.509 v1 ones (`tls_v1::keys_match` instead).
    let chain = read_certs(cert)?;
    let signing = p
        .key_provider
        .load_private_key(read_key(key)?)
        .map_err(|e| format!("{key}: {e}"))?;
    let ck = rustls::sign::CertifiedKey::new(chain, signing);
    crate::engine::tls::v1::check_keys(&ck).map_err(|e| format!("{key} / {cert}: {e}"))?;
    let mut cfg = b.with_cert_resolver(Arc::new(OneServerCert(Arc::new(ck))));
    cfg.alpn_protocols = o.alpn.clone();
    let cfg = Arc::new(cfg);
    if let Ok(mut m) = cache.lock() {
        if m.len() > 64 {
            m.clear();
        }
        m.insert(o.clone(), Arc::clone(&cfg));
    }
    Ok(cfg)
}

fn build_config(o: &TlsOptions) -> Result<ClientConfig, String> {
    let p = provider();
    let inner = if o.verify_peer {
        let store = roots(o)?;
        if store.is_empty() {
            None
        } else {
            Some(
                WebPkiServerVerifier::builder_with_provider(store, Arc::clone(&p))
                    .build()
                    .map_err(|e| e.to_string())?,
            )
        }
    } else {
        None
    };
    let verifier = Arc::new(Verifier {
        verify_peer: o.verify_peer,
        allow_self_signed: o.allow_self_signed,
        inner,
        provider: Arc::clone(&p),
        depth: o.verify_depth,
        trusted: cafile_certs(o),
    });
    let b = ClientConfig::builder_with_provider(Arc::clone(&p))
        .with_protocol_versions(&versions(o)?)
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut cfg = match (&o.cert_file, &o.key_file) {
        (Some(c), Some(k)) => {
            // Not `with_client_auth_cert`: it parses the certificate with
            // webpki, which refuses X.509 v1 ones that OpenSSL sends.
            let key = p
                .key_provider
                .load_private_key(read_key(k)?)
                .map_err(|e| format!("{k}: {e}"))?;
            let ck = Arc::new(rustls::sign::CertifiedKey::new(read_certs(c)?, key));
            b.with_client_cert_resolver(Arc::new(OneClientCert(ck)))
        }
        _ => b.with_no_client_auth(),
    };
    cfg.alpn_protocols = o.alpn.clone();
    cfg.enable_sni = o.host_name.as_deref() != Some("");
    Ok(cfg)
}

/// The one client certificate of `ssl_cert_file`, offered whatever the
/// server asks for.
#[derive(Debug)]
struct OneClientCert(Arc<rustls::sign::CertifiedKey>);

impl rustls::client::ResolvesClientCert for OneClientCert {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[rustls::SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// The one server certificate of `ssl_cert_file`, whatever name is asked.
#[derive(Debug)]
struct OneServerCert(Arc<rustls::sign::CertifiedKey>);

impl rustls::server::ResolvesServerCert for OneServerCert {
    fn resolve(
        &self,
        _hello: rustls::server::ClientHello<'_>,
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }
}

/// `verifyPeerCert()`: checks `certs` (leaf first) as the handshake would
/// have with `ssl_verify_peer`; the Swoole error code when it fails.
pub fn verify_chain(o: &TlsOptions, host: &str, certs: &[Vec<u8>]) -> Result<(), i32> {
    let Some((leaf, rest)) = certs.split_first() else {
        return Err(ERR_EMPTY_PEER_CERT);
    };
    let store = roots(o).map_err(|_| ERR_CREATE_CONTEXT_FAILED)?;
    let p = provider();
    let inner = if store.is_empty() {
        None
    } else {
        WebPkiServerVerifier::builder_with_provider(store, Arc::clone(&p))
            .build()
            .ok()
    };
    let v = Verifier {
        verify_peer: true,
        allow_self_signed: o.allow_self_signed,
        inner,
        provider: p,
        depth: o.verify_depth,
        trusted: cafile_certs(o),
    };
    let leaf = CertificateDer::from(leaf.as_slice());
    let rest: Vec<CertificateDer<'_>> = rest
        .iter()
        .map(|c| CertificateDer::from(c.as_slice()))
        .collect();
    v.verify_server_cert(&leaf, &rest, &server_name(o, host), &[], UnixTime::now())
        .map(|_| ())
        .map_err(|_| ERR_VERIFY_FAILED)
}

/// The name the handshake uses: `ssl_host_name`, else the host (an IP
/// sends no SNI and is not checked against the certificate).
pub fn server_name(o: &TlsOptions, host: &str) -> ServerName<'static> {
    let h = match o.host_name.as_deref() {
        Some(n) if !n.is_empty() => n,
        _ => host.trim_start_matches('[').trim_end_matches(']'),
    };
    if let Ok(ip) = h.parse::<IpAddr>() {
        return ServerName::IpAddress(ip.into());
    }
    match ServerName::try_from(h.to_string()) {
        Ok(n) => n,
        Err(_) => ServerName::IpAddress(IpAddr::from([0u8, 0, 0, 0]).into()),
    }
}

/// The Swoole error code for a failed handshake.
pub fn error_code(e: &rustls::Error) -> i32 {
    match e {
        rustls::Error::InvalidCertificate(_) => ERR_VERIFY_FAILED,
        _ => ERR_HANDSHAKE_FAILED,
    }
}

/// The Swoole error code carried by an I/O error from a TLS stream, if it
/// is a TLS failure.
pub fn io_error_code(e: &io::Error) -> Option<i32> {
    let inner = e.get_ref()?;
    let t = inner.downcast_ref::<rustls::Error>()?;
    Some(error_code(t))
}

/// A certificate in PEM, as OpenSSL's `PEM_write_X509` writes it.
pub fn pem(der: &[u8]) -> String {
    let b64 = crate::engine::ws::handshake::base64_encode(der);
    let mut s = String::with_capacity(b64.len() + b64.len() / 64 + 60);
    s.push_str("-----BEGIN CERTIFICATE-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        s.push_str(&String::from_utf8_lossy(chunk));
        s.push('\n');
    }
    s.push_str("-----END CERTIFICATE-----\n");
    s
}

/// The peer's leaf certificate in PEM.
pub fn peer_pem(conn: &rustls::CommonState) -> Option<String> {
    conn.peer_certificates()
        .and_then(|c| c.first())
        .map(|c| pem(c.as_ref()))
}

/// An I/O error carrying a Swoole error code as its "errno", which the PHP
/// layer turns into `errCode`/`errMsg`.
pub fn code_error(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

// ------------------------------------------------------------ sans-io session

/// Plain reads and writes on a non-blocking descriptor.
struct FdIo(RawFd);

impl Read for FdIo {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `buf` is valid for `buf.len()` bytes; the fd is open for
        // the duration of the session's operation.
        let n = unsafe { libc::recv(self.0, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }
}

impl Write for FdIo {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: `buf` is valid for `buf.len()` bytes; MSG_NOSIGNAL keeps
        // a closed peer from raising SIGPIPE.
        let n = unsafe { libc::send(self.0, buf.as_ptr().cast(), buf.len(), libc::MSG_NOSIGNAL) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A TLS session (client, or the server side of an accepted socket) over a
/// non-blocking socket, driven by one attempt at a time (`WouldBlock` =
/// wait for the socket and call again).
pub struct Session {
    conn: Connection,
    /// Plaintext accepted by a `send_step` whose records are not all out.
    accepted: Option<usize>,
}

fn tls_io_error(e: rustls::Error) -> io::Error {
    code_error(error_code(&e))
}

impl Session {
    pub fn new(o: &TlsOptions, host: &str) -> Result<Self, String> {
        let cfg = client_config(o)?;
        let conn = ClientConnection::new(cfg, server_name(o, host)).map_err(|e| e.to_string())?;
        Ok(Session {
            conn: Connection::Client(conn),
            accepted: None,
        })
    }

    /// The server side of an accepted connection.
    pub fn new_server(o: &TlsOptions) -> Result<Self, String> {
        let cfg = server_config(o)?;
        let conn = ServerConnection::new(cfg).map_err(|e| e.to_string())?;
        Ok(Session {
            conn: Connection::Server(conn),
            accepted: None,
        })
    }

    /// Writes pending records; `WouldBlock` when the socket is full.
    fn flush(&mut self, fd: RawFd) -> io::Result<()> {
        while self.conn.wants_write() {
            self.conn.write_tls(&mut FdIo(fd))?;
        }
        Ok(())
    }

    /// Reads and processes records once; false at end of stream.
    fn pull(&mut self, fd: RawFd) -> io::Result<bool> {
        let n = self.conn.read_tls(&mut FdIo(fd))?;
        if n == 0 {
            return Ok(false);
        }
        let r = self.conn.process_new_packets();
        // Alerts and key updates go out even when the records were bad.
        let _ = self.flush(fd);
        r.map_err(tls_io_error)?;
        Ok(true)
    }

    /// Drives the handshake; `Ok` once it is complete. Waits on reads
    /// (the handshake's writes are small and go out at once).
    pub fn handshake_step(&mut self, fd: RawFd) -> io::Result<()> {
        loop {
            self.flush(fd)?;
            if !self.conn.is_handshaking() {
                return Ok(());
            }
            if !self.pull(fd)? {
                return Err(code_error(ERR_HANDSHAKE_FAILED));
            }
        }
    }

    /// Plaintext already decrypted and waiting.
    pub fn readable_now(&mut self) -> bool {
        self.conn
            .process_new_packets()
            .is_ok_and(|s| s.plaintext_bytes_to_read() > 0)
    }

    /// One read of up to `len` plaintext bytes; empty at end of stream.
    pub fn recv_step(&mut self, fd: RawFd, len: usize) -> io::Result<Vec<u8>> {
        let mut v = vec![0u8; len.max(1)];
        loop {
            match self.conn.reader().read(&mut v) {
                Ok(n) => {
                    v.truncate(n);
                    return Ok(v);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // The peer closed without close_notify: the end, as OpenSSL
                // reports it to Swoole.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Vec::new()),
                Err(e) => return Err(e),
            }
            if !self.pull(fd)? {
                return Ok(Vec::new());
            }
        }
    }

    /// One write: takes up to all of `data` as records, returns how much once
    /// those records are on the socket (`WouldBlock` in between: call again
    /// with the same data).
    pub fn send_step(&mut self, fd: RawFd, data: &[u8]) -> io::Result<usize> {
        if self.accepted.is_none() {
            self.flush(fd)?;
            let n = self.conn.writer().write(data)?;
            self.accepted = Some(n);
        }
        self.flush(fd)?;
        Ok(self.accepted.take().unwrap_or(0))
    }

    /// Sends close_notify (best effort, never waits).
    pub fn close_notify(&mut self, fd: RawFd) {
        self.conn.send_close_notify();
        let _ = self.flush(fd);
    }

    pub fn peer_cert_pem(&self) -> Option<String> {
        peer_pem(&self.conn)
    }

    pub fn peer_certs_der(&self) -> Vec<Vec<u8>> {
        self.conn
            .peer_certificates()
            .map(|c| c.iter().map(|c| c.as_ref().to_vec()).collect())
            .unwrap_or_default()
    }

    pub fn is_handshaking(&self) -> bool {
        self.conn.is_handshaking()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_lines_are_64_wide() {
        let p = pem(&[7u8; 100]);
        assert!(p.starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert!(p.ends_with("-----END CERTIFICATE-----\n"));
        for l in p.lines() {
            assert!(l.len() <= 64 || l.starts_with("-----"));
        }
    }

    #[test]
    fn der_walk_rejects_garbage() {
        assert!(issuer_subject(&[0x30, 0x82, 0xff]).is_none());
        assert!(!is_self_signed(&CertificateDer::from(vec![1u8, 2, 3])));
    }

    #[test]
    fn server_name_prefers_host_name() {
        let o = TlsOptions {
            host_name: Some("example.com".into()),
            ..Default::default()
        };
        assert!(matches!(
            server_name(&o, "127.0.0.1"),
            ServerName::DnsName(_)
        ));
        let o = TlsOptions::default();
        assert!(matches!(
            server_name(&o, "127.0.0.1"),
            ServerName::IpAddress(_)
        ));
    }
}
