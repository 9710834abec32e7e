//! X.509 v1 certificates (no extensions; what `openssl x509 -req` makes
//! without `-extfile`), which OpenSSL, and so Swoole, accepts and webpki
//! refuses (`UnsupportedCertVersion`): the fallbacks that let rustls use them.
//!
//! Only the v1 case goes through here; every v3 certificate keeps webpki's
//! checks. The certificate is decoded with `x509-parser` (and its signature
//! checked with its `ring` backend); the handshake signatures are checked by
//! webpki over the certificate's public key, as a raw key (RFC 7250 style).
//! A v1 leaf is accepted when it is in its validity period and signed by one
//! of the trusted certificates directly (a v1 certificate cannot say it is a
//! CA, so there is no chain through v1 intermediates).
//!
//! Also here, because the server ports (`tls`) and the coroutine server's
//! ports (`tls_client`) both build it: `ClientVerifier`, the mutual-TLS client
//! verifier with `ssl_verify_depth` and the v1 fallback.

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::CryptoProvider;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, SubjectPublicKeyInfoDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::sign::CertifiedKey;
use rustls::DistinguishedName;
use rustls::{CertificateError, DigitallySignedStruct, Error, InconsistentKeys};
use x509_parser::certificate::X509Certificate;
use x509_parser::prelude::{FromDer, X509Version};

/// The DER SubjectPublicKeyInfo of `cert` when it is a v1 certificate.
pub fn spki(cert: &[u8]) -> Option<SubjectPublicKeyInfoDer<'static>> {
    let (_, c) = X509Certificate::from_der(cert).ok()?;
    (c.version() == X509Version::V1)
        .then(|| SubjectPublicKeyInfoDer::from(c.public_key().raw.to_vec()))
}

/// Whether the key `key_spki` is the one of the v1 certificate `cert`
/// (`None`: `cert` is not a v1 certificate).
pub fn keys_match(cert: &[u8], key_spki: &[u8]) -> Option<bool> {
    spki(cert).map(|s| s.as_ref() == key_spki)
}

/// `CertifiedKey::keys_match`, which parses the leaf with webpki, with a
/// v1 leaf's key compared here instead.
pub fn check_keys(ck: &CertifiedKey) -> Result<(), Error> {
    let v1 = ck.key.public_key().and_then(|k| {
        ck.cert
            .first()
            .and_then(|c| keys_match(c.as_ref(), k.as_ref()))
    });
    match v1 {
        Some(true) => Ok(()),
        Some(false) => Err(Error::InconsistentKeys(InconsistentKeys::KeyMismatch)),
        None => ck.keys_match(),
    }
}

fn raw_verify(
    spki: &SubjectPublicKeyInfoDer<'_>,
    algs: &[&'static dyn rustls::pki_types::SignatureVerificationAlgorithm],
    message: &[u8],
    dss: &DigitallySignedStruct,
) -> Result<HandshakeSignatureValid, Error> {
    let key = webpki::RawPublicKeyEntity::try_from(spki)
        .map_err(|_| Error::InvalidCertificate(CertificateError::BadEncoding))?;
    for alg in algs {
        if key.verify_signature(*alg, message, dss.signature()).is_ok() {
            return Ok(HandshakeSignatureValid::assertion());
        }
    }
    Err(Error::InvalidCertificate(CertificateError::BadSignature))
}

fn algs_for(
    supported: &WebPkiSupportedAlgorithms,
    dss: &DigitallySignedStruct,
) -> &'static [&'static dyn rustls::pki_types::SignatureVerificationAlgorithm] {
    supported
        .mapping
        .iter()
        .find(|(s, _)| *s == dss.scheme)
        .map_or(&[], |(_, a)| a)
}

/// rustls's TLS 1.2 handshake-signature check, and for a v1 certificate
/// the same check over its public key.
pub fn verify_tls12_signature(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
    supported: &WebPkiSupportedAlgorithms,
) -> Result<HandshakeSignatureValid, Error> {
    match rustls::crypto::verify_tls12_signature(message, cert, dss, supported) {
        Err(e) => match spki(cert) {
            Some(k) => raw_verify(&k, algs_for(supported, dss), message, dss),
            None => Err(e),
        },
        ok => ok,
    }
}

/// rustls's TLS 1.3 handshake-signature check, and for a v1 certificate
/// the same check over its public key.
pub fn verify_tls13_signature(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
    supported: &WebPkiSupportedAlgorithms,
) -> Result<HandshakeSignatureValid, Error> {
    match rustls::crypto::verify_tls13_signature(message, cert, dss, supported) {
        Err(e) => match spki(cert) {
            Some(k) => {
                rustls::crypto::verify_tls13_signature_with_raw_key(message, &k, dss, supported)
            }
            None => Err(e),
        },
        ok => ok,
    }
}

/// Checks a v1 leaf against the trusted certificates `roots`: in its
/// validity period at `now` and signed by one of them. `None`: `leaf` is
/// not a v1 certificate (webpki's verdict stands).
pub fn verify_leaf(
    leaf: &[u8],
    roots: &[CertificateDer<'static>],
    now: UnixTime,
) -> Option<Result<(), CertificateError>> {
    let (_, c) = X509Certificate::from_der(leaf).ok()?;
    if c.version() != X509Version::V1 {
        return None;
    }
    let now = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    let validity = c.validity();
    if now < validity.not_before.timestamp() {
        return Some(Err(CertificateError::NotValidYet));
    }
    if now > validity.not_after.timestamp() {
        return Some(Err(CertificateError::Expired));
    }
    let mut error = CertificateError::UnknownIssuer;
    for r in roots {
        let Ok((_, root)) = X509Certificate::from_der(r.as_ref()) else {
            continue;
        };
        if root.subject().as_raw() != c.issuer().as_raw() {
            continue;
        }
        match c.verify_signature(Some(root.public_key())) {
            Ok(()) => return Some(Ok(())),
            Err(_) => error = CertificateError::BadSignature,
        }
    }
    Some(Err(error))
}

/// OpenSSL's `verify_depth` rule as far as a verifier that sees only the
/// presented chain can apply it: no more intermediate CAs than `depth`
/// (neither the leaf nor the trust anchor counts). A presented chain that
/// ends with the root itself counts that root too (an over-count of one).
pub fn chain_too_long(depth: Option<i64>, intermediates: usize) -> bool {
    depth.is_some_and(|d| d >= 0 && intermediates as i64 > d)
}

/// The client verifier of a mutual-TLS port: webpki's, plus
/// `ssl_verify_depth` (a client chain with more intermediate CAs than
/// `depth` refused, `chain_too_long`) and X.509 v1 client
/// certificates, which OpenSSL accepts and webpki refuses (above).
#[derive(Debug)]
pub(crate) struct ClientVerifier {
    pub(crate) inner: Arc<dyn ClientCertVerifier>,
    pub(crate) depth: Option<i64>,
    /// The trusted certificates, for a v1 leaf.
    pub(crate) roots: Vec<CertificateDer<'static>>,
    pub(crate) provider: Arc<CryptoProvider>,
}

impl ClientCertVerifier for ClientVerifier {
    fn offer_client_auth(&self) -> bool {
        self.inner.offer_client_auth()
    }

    fn client_auth_mandatory(&self) -> bool {
        self.inner.client_auth_mandatory()
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> std::result::Result<ClientCertVerified, rustls::Error> {
        if chain_too_long(self.depth, intermediates.len()) {
            return Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ));
        }
        match self
            .inner
            .verify_client_cert(end_entity, intermediates, now)
        {
            Err(e @ rustls::Error::InvalidCertificate(_)) => {
                match verify_leaf(end_entity.as_ref(), &self.roots, now) {
                    Some(Ok(())) => Ok(ClientCertVerified::assertion()),
                    Some(Err(v1)) => Err(rustls::Error::InvalidCertificate(v1)),
                    None => Err(e),
                }
            }
            r => r,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
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
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.inner.supported_verify_schemes()
    }

    fn requires_raw_public_keys(&self) -> bool {
        self.inner.requires_raw_public_keys()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::process::Command;

    #[test]
    fn garbage_is_not_v1() {
        assert!(spki(b"not a certificate").is_none());
        assert!(keys_match(b"\x30\x03\x02\x01\x00", b"").is_none());
        assert!(verify_leaf(b"", &[], UnixTime::now()).is_none());
    }

    fn openssl(dir: &Path, args: &str) -> bool {
        Command::new("openssl")
            .args(args.split(' '))
            .current_dir(dir)
            .output()
            .is_ok_and(|o| o.status.success())
    }

    fn der(dir: &Path, name: &str) -> CertificateDer<'static> {
        let pem = std::fs::read(dir.join(name)).expect("read cert");
        let first = rustls_pemfile::certs(&mut pem.as_slice())
            .next()
            .expect("one cert")
            .expect("PEM");
        first
    }

    /// v1 certificates made by `openssl x509 -req` (skipped without openssl).
    #[test]
    fn v1_leaf_checked_against_its_issuer() {
        let dir = std::env::temp_dir().join(format!("rsw_tls_v1_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        let rsa = "-newkey rsa:2048 -nodes";
        let ok = ["ca", "other"].iter().all(|ca| {
            openssl(
                &dir,
                &format!("req {rsa} -keyout {ca}.key -out {ca}.csr -subj /CN={ca}"),
            ) && openssl(
                &dir,
                &format!("x509 -req -in {ca}.csr -signkey {ca}.key -days 2 -out {ca}.crt"),
            )
        }) && openssl(
            &dir,
            &format!("req {rsa} -keyout leaf.key -out leaf.csr -subj /CN=leaf"),
        ) && openssl(
            &dir,
            "x509 -req -in leaf.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out leaf.crt",
        ) && openssl(&dir, "pkey -in leaf.key -pubout -outform DER -out leaf.pub")
            && openssl(
                &dir,
                "req -x509 -newkey rsa:2048 -nodes -keyout v3.key -out v3.crt -days 2 -subj /CN=v3",
            );
        if !ok {
            eprintln!("openssl not usable: skipped");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        let (ca, other, leaf, v3) = (
            der(&dir, "ca.crt"),
            der(&dir, "other.crt"),
            der(&dir, "leaf.crt"),
            der(&dir, "v3.crt"),
        );
        let leaf_pub = std::fs::read(dir.join("leaf.pub")).expect("pub");
        let _ = std::fs::remove_dir_all(&dir);

        assert!(
            spki(v3.as_ref()).is_none(),
            "a v3 certificate stays with webpki"
        );
        assert_eq!(keys_match(leaf.as_ref(), &leaf_pub), Some(true));
        assert_eq!(keys_match(ca.as_ref(), &leaf_pub), Some(false));
        let now = UnixTime::now();
        assert_eq!(
            verify_leaf(leaf.as_ref(), &[other.clone(), ca.clone()], now),
            Some(Ok(()))
        );
        assert_eq!(
            verify_leaf(leaf.as_ref(), &[other], now),
            Some(Err(CertificateError::UnknownIssuer))
        );
        let later =
            UnixTime::since_unix_epoch(std::time::Duration::from_secs(now.as_secs() + 5 * 86400));
        assert_eq!(
            verify_leaf(leaf.as_ref(), &[ca], later),
            Some(Err(CertificateError::Expired))
        );
        assert!(verify_leaf(v3.as_ref(), &[], now).is_none());
    }
}
