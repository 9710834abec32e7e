//! TLS on server ports: the rustls acceptor built from the `ssl_*` settings,
//! the handshake (with its timeout) and [`NetStream`], the one stream type the
//! HTTP, WebSocket and raw TCP code runs over, plain or encrypted.
//!
//! rustls with its `ring` provider (docs/internals.md, "TLS"): TLS 1.2 and 1.3
//! only, no OpenSSL. What the settings ask for and rustls cannot do (a cipher
//! name it has no suite for, TLS 1.0/1.1) is reported as a
//! warning by [`build`], never silently dropped.

pub mod client;
pub mod v1;

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use rustls::{CipherSuite, RootCertStore, SupportedCipherSuite};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::engine::error::{Error, Result};
use crate::engine::tls::v1::ClientVerifier;

/// `SWOOLE_SSL_*` protocol bits (Swoole 6.2.2's values).
pub const PROTO_SSLV2: u32 = 2;
pub const PROTO_SSLV3: u32 = 4;
pub const PROTO_TLSV1: u32 = 8;
pub const PROTO_TLSV1_1: u32 = 16;
pub const PROTO_TLSV1_2: u32 = 32;
pub const PROTO_TLSV1_3: u32 = 64;

/// How long a client has to finish its handshake before the connection is cut.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// One certificate and its key, as file paths.
#[derive(Debug, Clone, Default)]
pub struct CertFiles {
    pub cert_file: String,
    pub key_file: String,
}

/// The `ssl_*` settings of one port, as the PHP layer read them.
#[derive(Debug, Clone)]
pub struct TlsSettings {
    pub cert: CertFiles,
    /// `ssl_protocols`: `PROTO_*` bits; 0 means the default (TLS 1.2 + 1.3).
    pub protocols: u32,
    /// `ssl_ciphers`, OpenSSL syntax.
    pub ciphers: Option<String>,
    pub verify_peer: bool,
    pub allow_self_signed: bool,
    /// `ssl_client_cert_file`: the CAs client certificates are checked against.
    pub client_cert_file: Option<String>,
    pub verify_depth: Option<i64>,
    /// `ssl_sni_certs`: host name -> its certificate.
    pub sni: Vec<(String, CertFiles)>,
    pub prefer_server_ciphers: bool,
    /// ALPN: offer `h2` (before `http/1.1`).
    pub alpn_h2: bool,
    /// ALPN: offer `http/1.1` (an HTTP port).
    pub alpn_http1: bool,
}

impl Default for TlsSettings {
    fn default() -> Self {
        TlsSettings {
            cert: CertFiles::default(),
            protocols: 0,
            ciphers: None,
            verify_peer: false,
            allow_self_signed: false,
            client_cert_file: None,
            verify_depth: None,
            sni: Vec::new(),
            // Swoole's default.
            prefer_server_ciphers: true,
            alpn_h2: false,
            alpn_http1: false,
        }
    }
}

/// A port's TLS acceptor, shared by its connections.
pub struct ServerTls {
    acceptor: tokio_rustls::TlsAcceptor,
    /// Keep the client's certificate for `getClientInfo()`.
    pub keep_client_cert: bool,
}

impl fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerTls")
    }
}

/// Every cipher suite of the ring provider under its OpenSSL name.
const SUITE_NAMES: &[(&str, CipherSuite)] = &[
    (
        "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_AES_256_GCM_SHA384,
    ),
    (
        "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_AES_128_GCM_SHA256,
    ),
    (
        "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    ),
    (
        "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
    ),
    (
        "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    ),
    (
        "ECDHE-ECDSA-CHACHA20-POLY1305",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    ),
    (
        "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
    ),
    (
        "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    ),
    (
        "ECDHE-RSA-CHACHA20-POLY1305",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ),
];

/// True when OpenSSL cipher-string alias `alias` (one part of an `A+B`
/// term) covers the TLS 1.2 suite called `name`.
fn alias_matches(alias: &str, name: &str) -> bool {
    let a = alias.to_ascii_uppercase();
    let parts: Vec<&str> = name.split('-').collect();
    let has = |p: &str| parts.contains(&p);
    match a.as_str() {
        "ALL" | "DEFAULT" | "HIGH" | "TLSV1.2" | "SSLV3" | "FIPS" | "SECURE" => true,
        "ECDHE" | "EECDH" | "KECDHE" | "KEECDH" | "ECDH" => has("ECDHE"),
        "ECDSA" | "AECDSA" => has("ECDSA"),
        "RSA" | "ARSA" => has("RSA"),
        "AESGCM" => name.contains("GCM"),
        "AES" => name.contains("AES"),
        "AES128" => name.contains("AES128"),
        "AES256" => name.contains("AES256"),
        "CHACHA20" => name.contains("CHACHA20"),
        "SHA256" => name.ends_with("SHA256") || name.contains("CHACHA20"),
        "SHA384" => name.ends_with("SHA384"),
        "AEAD" => true,
        _ => a == name,
    }
}

/// OpenSSL cipher-string classes whose suites OpenSSL 3's default provider
/// does not have either, so a term naming one selects nothing in Swoole as
/// here, and OpenSSL says nothing about it.
fn absent_in_openssl3(alias: &str) -> bool {
    const ABSENT: &[&str] = &[
        "RC4", "SSLV2", "EXP", "EXPORT", "EXPORT40", "EXPORT56", "LOW", "DES", "RC2", "IDEA",
        "SEED",
    ];
    ABSENT.iter().any(|a| a.eq_ignore_ascii_case(alias))
}

/// The TLS 1.2 suites an OpenSSL cipher string selects, in its order, and
/// the terms it names that select nothing here. TLS 1.3 suites are not
/// configured by a cipher string in OpenSSL either; they are always on.
pub fn parse_ciphers(spec: &str) -> (Vec<CipherSuite>, Vec<String>) {
    let tls12: Vec<(&str, CipherSuite)> = SUITE_NAMES
        .iter()
        .filter(|(n, _)| !n.starts_with("TLS_"))
        .copied()
        .collect();
    let mut chosen: Vec<CipherSuite> = Vec::new();
    let mut banned: Vec<CipherSuite> = Vec::new();
    let mut unknown = Vec::new();
    for term in spec
        .split([':', ',', ' ', ';'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if term.starts_with('@') {
            // @STRENGTH, @SECLEVEL=n: ordering and policy knobs.
            continue;
        }
        let (op, body) = match term.as_bytes()[0] {
            b'!' | b'-' | b'+' => (term.as_bytes()[0], &term[1..]),
            _ => (0, term),
        };
        let hits: Vec<CipherSuite> = tls12
            .iter()
            .filter(|(n, _)| body.split('+').all(|a| alias_matches(a, n)))
            .map(|(_, s)| *s)
            .collect();
        match op {
            b'!' => banned.extend(hits),
            b'-' => chosen.retain(|s| !hits.contains(s)),
            b'+' => {
                // Move to the end.
                chosen.retain(|s| !hits.contains(s));
                chosen.extend(hits);
            }
            _ => {
                if hits.is_empty() {
                    // A TLS 1.3 name is fine: those are always enabled. So
                    // is a class OpenSSL 3 has no suite for either (RC4,
                    // export, SSLv2...): it selects nothing in Swoole too.
                    if !SUITE_NAMES
                        .iter()
                        .any(|(n, _)| n.eq_ignore_ascii_case(body))
                        && !body.split('+').any(absent_in_openssl3)
                    {
                        unknown.push(term.to_string());
                    }
                }
                for s in hits {
                    if !chosen.contains(&s) && !banned.contains(&s) {
                        chosen.push(s);
                    }
                }
            }
        }
    }
    chosen.retain(|s| !banned.contains(s));
    (chosen, unknown)
}

fn read_file(path: &str, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|_| Error::config(format!("{what}[{path}] not found")))
}

fn load_certs(path: &str, what: &str) -> Result<Vec<CertificateDer<'static>>> {
    let pem = read_file(path, what)?;
    let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut pem.as_slice())
        .collect::<io::Result<_>>()
        .map_err(|e| Error::config(format!("{what}[{path}] is not a PEM file: {e}")))?;
    if certs.is_empty() {
        return Err(Error::config(format!(
            "{what}[{path}] holds no PEM certificate"
        )));
    }
    Ok(certs)
}

fn load_key(path: &str) -> Result<PrivateKeyDer<'static>> {
    let pem = read_file(path, "ssl key file")?;
    rustls_pemfile::private_key(&mut pem.as_slice())
        .map_err(|e| Error::config(format!("ssl key file[{path}] is not a PEM file: {e}")))?
        .ok_or_else(|| Error::config(format!("ssl key file[{path}] holds no PEM private key")))
}

fn certified_key(files: &CertFiles, provider: &CryptoProvider) -> Result<Arc<CertifiedKey>> {
    if files.cert_file.is_empty() || files.key_file.is_empty() {
        return Err(Error::config(
            "require `ssl_cert_file` and `ssl_key_file` options",
        ));
    }
    let chain = load_certs(&files.cert_file, "ssl cert file")?;
    let key = load_key(&files.key_file)?;
    let signing = provider.key_provider.load_private_key(key).map_err(|e| {
        Error::config(format!(
            "ssl key file[{}] cannot be used: {e}",
            files.key_file
        ))
    })?;
    let ck = CertifiedKey::new(chain, signing);
    crate::engine::tls::v1::check_keys(&ck).map_err(|e| {
        Error::config(format!(
            "ssl key file[{}] does not match ssl cert file[{}]: {e}",
            files.key_file, files.cert_file
        ))
    })?;
    Ok(Arc::new(ck))
}

/// The default certificate, or the `ssl_sni_certs` one for the name the
/// client asked for.
#[derive(Debug)]
struct SniResolver {
    default: Option<Arc<CertifiedKey>>,
    by_name: HashMap<String, Arc<CertifiedKey>>,
}

impl ResolvesServerCert for SniResolver {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        hello
            .server_name()
            .and_then(|n| self.by_name.get(&n.to_ascii_lowercase()))
            .cloned()
            .or_else(|| self.default.clone())
            .or_else(|| self.by_name.values().next().cloned())
    }
}

/// Builds a port's acceptor. Returns it with the warnings to log (settings
/// that cannot be honoured); an error names the file or setting at fault.
pub fn build(s: &TlsSettings) -> Result<(ServerTls, Vec<String>)> {
    let mut warnings = Vec::new();
    let base = rustls::crypto::ring::default_provider();
    let mut suites: Vec<SupportedCipherSuite> = base.cipher_suites.clone();
    if let Some(spec) = s.ciphers.as_deref().filter(|c| !c.trim().is_empty()) {
        let (chosen, unknown) = parse_ciphers(spec);
        if !unknown.is_empty() {
            warnings.push(format!(
                "ssl_ciphers: rustls has no cipher suite for {} (it supports only AEAD suites with ECDHE: {})",
                unknown.join(", "),
                SUITE_NAMES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(":")
            ));
        }
        let tls13: Vec<SupportedCipherSuite> = base
            .cipher_suites
            .iter()
            .filter(|c| c.version() == &rustls::version::TLS13)
            .copied()
            .collect();
        let tls12: Vec<SupportedCipherSuite> = chosen
            .iter()
            .filter_map(|cs| {
                base.cipher_suites
                    .iter()
                    .find(|c| c.suite() == *cs)
                    .copied()
            })
            .collect();
        if tls12.is_empty() {
            warnings.push(format!(
                "ssl_ciphers[{spec}] selects no TLS 1.2 cipher suite: only TLS 1.3 is offered"
            ));
        }
        suites = tls13.into_iter().chain(tls12).collect();
    }
    let provider = Arc::new(CryptoProvider {
        cipher_suites: suites,
        ..base
    });

    let mut protos = s.protocols;
    if protos == 0 {
        protos = PROTO_TLSV1_2 | PROTO_TLSV1_3;
    }
    let old = protos & (PROTO_SSLV2 | PROTO_SSLV3 | PROTO_TLSV1 | PROTO_TLSV1_1);
    if old != 0 {
        let mut names = Vec::new();
        for (bit, n) in [
            (PROTO_SSLV2, "SSLv2"),
            (PROTO_SSLV3, "SSLv3"),
            (PROTO_TLSV1, "TLSv1"),
            (PROTO_TLSV1_1, "TLSv1.1"),
        ] {
            if old & bit != 0 {
                names.push(n);
            }
        }
        warnings.push(format!(
            "ssl_protocols: {} not supported (rustls speaks TLS 1.2 and 1.3 only)",
            names.join(", ")
        ));
    }
    let mut versions: Vec<&'static rustls::SupportedProtocolVersion> = Vec::new();
    if protos & PROTO_TLSV1_3 != 0 {
        versions.push(&rustls::version::TLS13);
    }
    if protos & PROTO_TLSV1_2 != 0 {
        versions.push(&rustls::version::TLS12);
    }
    if versions.is_empty() {
        return Err(Error::config(
            "ssl_protocols enables neither TLSv1.2 nor TLSv1.3, the only protocols supported",
        ));
    }

    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&versions)
        .map_err(|e| Error::config(format!("ssl_protocols/ssl_ciphers: {e}")))?;
    let builder = match s.client_cert_file.as_deref().filter(|f| !f.is_empty()) {
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            let trusted = load_certs(ca, "ssl_client_cert_file")?;
            for c in trusted.iter().cloned() {
                roots.add(c).map_err(|e| {
                    Error::config(format!(
                        "ssl_client_cert_file[{ca}] has a bad certificate: {e}"
                    ))
                })?;
            }
            let vb = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone());
            let vb = if s.verify_peer {
                vb
            } else {
                vb.allow_unauthenticated()
            };
            let v = vb
                .build()
                .map_err(|e| Error::config(format!("ssl_client_cert_file[{ca}]: {e}")))?;
            builder.with_client_cert_verifier(Arc::new(ClientVerifier {
                inner: v,
                depth: s.verify_depth,
                roots: trusted,
                provider: provider.clone(),
            }))
        }
        None => {
            if s.verify_peer {
                return Err(Error::config(
                    "server open verify peer require `ssl_client_cert_file` or `ssl_capath` or `ssl_cafile` config",
                ));
            }
            builder.with_no_client_auth()
        }
    };
    if s.allow_self_signed && s.verify_peer {
        warnings.push(
            "ssl_allow_self_signed: a self-signed client certificate is accepted only when it is in ssl_client_cert_file".into(),
        );
    }
    let default = if s.cert.cert_file.is_empty() && !s.sni.is_empty() {
        None
    } else {
        Some(certified_key(&s.cert, &provider)?)
    };
    let mut by_name = HashMap::new();
    for (name, files) in &s.sni {
        by_name.insert(name.to_ascii_lowercase(), certified_key(files, &provider)?);
    }
    let mut cfg = builder.with_cert_resolver(Arc::new(SniResolver { default, by_name }));
    cfg.ignore_client_order = s.prefer_server_ciphers;
    if s.alpn_h2 {
        cfg.alpn_protocols.push(b"h2".to_vec());
    }
    if s.alpn_http1 {
        cfg.alpn_protocols.push(b"http/1.1".to_vec());
    }
    Ok((
        ServerTls {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(cfg)),
            keep_client_cert: s.client_cert_file.is_some(),
        },
        warnings,
    ))
}

/// Why a handshake did not complete.
#[derive(Debug)]
pub enum HandshakeError {
    /// The first bytes were not a TLS record: plain text on a TLS port
    /// (`http`: an HTTP request line, as OpenSSL tells them apart).
    NotTls {
        http: bool,
    },
    TimedOut,
    Failed(io::Error),
}

impl HandshakeError {
    /// Swoole's warning for a client that broke the TLS protocol (OpenSSL's
    /// `SSL_ERROR_SSL`: plain text on the port, a refused certificate...),
    /// with OpenSSL's reason code and string for the closest case. `None`
    /// for the rest (the peer went away, a timeout), which Swoole does not
    /// report as a bad client.
    pub fn bad_client_warning(&self, peer: &SocketAddr) -> Option<String> {
        let (reason, text) = match self {
            HandshakeError::NotTls { http: true } => (156, "http request".to_string()),
            HandshakeError::NotTls { http: false } => (267, "wrong version number".to_string()),
            HandshakeError::Failed(e) => {
                let tls = e
                    .get_ref()
                    .and_then(|i| i.downcast_ref::<rustls::Error>())?;
                match tls {
                    rustls::Error::InvalidCertificate(_)
                    | rustls::Error::NoCertificatesPresented => {
                        (134, "certificate verify failed".to_string())
                    }
                    other => (0, other.to_string()),
                }
            }
            HandshakeError::TimedOut => return None,
        };
        Some(format!(
            "Socket::ssl_accept(): bad SSL client[{}:{}], reason={reason}, error_string={text}",
            peer.ip(),
            peer.port()
        ))
    }
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandshakeError::NotTls { .. } => {
                f.write_str("not a TLS client (plain text on a TLS port)")
            }
            HandshakeError::TimedOut => write!(
                f,
                "handshake not finished within {} s",
                HANDSHAKE_TIMEOUT.as_secs()
            ),
            HandshakeError::Failed(e) => write!(f, "{e}"),
        }
    }
}

impl ServerTls {
    /// Runs the server handshake on `stream`, within [`HANDSHAKE_TIMEOUT`].
    /// A socket that fails is shut down (not only closed: in PROCESS mode
    /// the master holds a copy) before it is dropped.
    pub async fn accept(
        &self,
        stream: TcpStream,
    ) -> std::result::Result<NetStream, HandshakeError> {
        let raw = stream.as_raw_fd();
        let end = || {
            let _ = nix::sys::socket::shutdown(raw, nix::sys::socket::Shutdown::Both);
        };
        let work = async {
            // A TLS client starts with a handshake record (0x16); anything
            // else (an HTTP request line) is refused before rustls sees it.
            let mut first = [0u8; 8];
            let bad = match stream.peek(&mut first).await {
                Ok(n) if n > 0 && first[0] == 0x16 => None,
                Ok(0) => Some(HandshakeError::Failed(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "closed before the handshake",
                ))),
                Ok(n) => Some(HandshakeError::NotTls {
                    http: [&b"GET "[..], b"POST ", b"HEAD ", b"PUT "]
                        .iter()
                        .any(|m| first[..n].starts_with(m)),
                }),
                Err(e) => Some(HandshakeError::Failed(e)),
            };
            if let Some(e) = bad {
                end();
                return Err(e);
            }
            match self.acceptor.accept(stream).into_fallible().await {
                Ok(s) => Ok(s),
                Err((e, s)) => {
                    end();
                    drop(s);
                    Err(HandshakeError::Failed(e))
                }
            }
        };
        tokio::pin!(work);
        tokio::select! {
            r = &mut work => r.map(|s| NetStream::Tls(Box::new(s))),
            _ = tokio::time::sleep(HANDSHAKE_TIMEOUT) => {
                // The socket is still owned by `work`: open.
                end();
                Err(HandshakeError::TimedOut)
            }
        }
    }
}

/// A server connection's socket, plain or under TLS.
pub enum NetStream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

impl NetStream {
    /// The TCP socket underneath.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            NetStream::Plain(s) => s,
            NetStream::Tls(s) => s.get_ref().0,
        }
    }

    pub fn is_tls(&self) -> bool {
        matches!(self, NetStream::Tls(_))
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.tcp().local_addr()
    }

    /// True when ALPN chose `h2`.
    pub fn alpn_h2(&self) -> bool {
        match self {
            NetStream::Plain(_) => false,
            NetStream::Tls(s) => s.get_ref().1.alpn_protocol() == Some(b"h2"),
        }
    }

    /// The client's certificate (the first of its chain) in PEM.
    pub fn client_cert_pem(&self) -> Option<String> {
        let NetStream::Tls(s) = self else {
            return None;
        };
        let der = s.get_ref().1.peer_certificates()?.first()?;
        Some(pem("CERTIFICATE", der.as_ref()))
    }
}

impl AsyncRead for NetStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for NetStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            NetStream::Plain(s) => s.is_write_vectored(),
            NetStream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_flush(cx),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            NetStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            NetStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// DER bytes as a PEM block of `label`.
pub fn pem(label: &str, der: &[u8]) -> String {
    const ALPHA: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut b64 = String::with_capacity(der.len() * 4 / 3 + 4);
    for chunk in der.chunks(3) {
        let n = chunk.len();
        let v = (chunk[0] as u32) << 16
            | (chunk.get(1).copied().unwrap_or(0) as u32) << 8
            | chunk.get(2).copied().unwrap_or(0) as u32;
        for i in 0..4 {
            if i <= n {
                b64.push(ALPHA[(v >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                b64.push('=');
            }
        }
    }
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// Client certificates of this process's TLS connections, by connection id
/// (`getClientInfo()['ssl_client_cert']`; like Swoole, only the worker
/// holding the connection sees it). A process-wide map, not a thread-local:
/// the static TLS block of the extension is nearly full (docs/internals.md).
static CLIENT_CERTS: std::sync::Mutex<Option<HashMap<i64, Arc<str>>>> = std::sync::Mutex::new(None);

fn certs<R>(f: impl FnOnce(&mut HashMap<i64, Arc<str>>) -> R) -> R {
    let mut g = CLIENT_CERTS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// Set once a certificate was remembered: a process that never kept one
/// pays nothing per closed connection.
static ANY_CERTS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Remembers connection `fd`'s client certificate.
pub fn remember_client_cert(fd: i64, pem: String) {
    ANY_CERTS.store(true, std::sync::atomic::Ordering::Relaxed);
    certs(|t| t.insert(fd, Arc::from(pem)));
}

/// Connection `fd`'s client certificate, when this worker holds it.
pub fn client_cert(fd: i64) -> Option<Arc<str>> {
    if !ANY_CERTS.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    certs(|t| t.get(&fd).cloned())
}

/// Connection `fd` ended.
pub fn forget(fd: i64) {
    if !ANY_CERTS.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    certs(|t| t.remove(&fd));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swoole_default_cipher_list() {
        let (s, unknown) = parse_ciphers("EECDH+AESGCM:EDH+AESGCM:AES256+EECDH:AES256+EDH");
        // EDH (finite-field DHE) has no rustls suite.
        assert_eq!(unknown, vec!["EDH+AESGCM", "AES256+EDH"]);
        assert!(s.contains(&CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256));
        assert!(s.contains(&CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384));
        assert!(!s.contains(&CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256));
    }

    #[test]
    fn exclusions_and_exact_names() {
        let (s, unknown) = parse_ciphers("HIGH:!CHACHA20:!aNULL:!MD5");
        assert!(unknown.is_empty());
        assert_eq!(s.len(), 4);
        let (s, _) = parse_ciphers("ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-GCM-SHA256");
        assert_eq!(
            s,
            vec![
                CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
                CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
            ]
        );
        let (s, unknown) = parse_ciphers("RC4-SHA:DES-CBC3-SHA");
        assert!(s.is_empty());
        assert_eq!(unknown.len(), 2);
    }

    #[test]
    fn pem_encoding() {
        let p = pem("X", b"hello world");
        assert_eq!(p, "-----BEGIN X-----\naGVsbG8gd29ybGQ=\n-----END X-----\n");
    }

    #[test]
    fn missing_files_are_named() {
        let s = TlsSettings {
            cert: CertFiles {
                cert_file: "/nonexistent/c.pem".into(),
                key_file: "/nonexistent/k.pem".into(),
            },
            ..TlsSettings::default()
        };
        let e = build(&s).expect_err("must fail");
        assert_eq!(e.to_string(), "ssl cert file[/nonexistent/c.pem] not found");
        let e = build(&TlsSettings::default()).expect_err("must fail");
        assert!(e.to_string().contains("ssl_cert_file"));
    }
}
