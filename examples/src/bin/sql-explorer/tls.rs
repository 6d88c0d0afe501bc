//! TLS to PostgreSQL, as libpq's `sslmode` and `sslrootcert` say, with rustls (the `ring`
//! provider).
//!
//! | `sslmode` | TLS | the certificate |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (the default) | if the server offers it | not checked |
//! | `require` | always | not checked (checked as `verify-ca` when `sslrootcert` is given) |
//! | `verify-ca` | always | signed by a trusted root |
//! | `verify-full` | always | signed by a trusted root and issued for the host connected to |
//!
//! The trusted roots are the certificates in the PEM file `sslrootcert` names, or the
//! platform's roots when it is absent or `system`. `tokio-postgres` knows neither the
//! `verify-*` modes nor `sslrootcert`, so both are taken out of the connection string here
//! and the rest is parsed by `tokio-postgres` as before.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres::config::SslMode as PgSslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`, less `allow` (plain first, TLS if refused), which `tokio-postgres`
/// cannot do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// TLS if the server offers it; the certificate is not checked.
    Prefer,
    /// TLS; the certificate is not checked.
    Require,
    /// TLS; the certificate chains to a trusted root.
    VerifyCa,
    /// TLS; the certificate chains to a trusted root and names the host.
    VerifyFull,
}

/// How to secure the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    /// `sslmode`.
    pub mode: SslMode,
    /// `sslrootcert`: a PEM file of trusted roots; `None` for the platform's.
    pub root_cert: Option<PathBuf>,
}

impl Tls {
    /// What `tokio-postgres` is told: whether to ask for TLS and whether to insist.
    pub fn pg_mode(&self) -> PgSslMode {
        match self.mode {
            SslMode::Disable => PgSslMode::Disable,
            SslMode::Prefer => PgSslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => PgSslMode::Require,
        }
    }

    /// The mode in effect: `require` with `sslrootcert` checks the chain, as in libpq.
    fn effective_mode(&self) -> SslMode {
        match self.mode {
            SslMode::Require if self.root_cert.is_some() => SslMode::VerifyCa,
            mode => mode,
        }
    }

    /// The rustls connector for this mode.
    ///
    /// # Errors
    ///
    /// `sslrootcert` cannot be read or holds no certificate, or the platform has no roots.
    pub fn connector(&self) -> Result<MakeRustlsConnect, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?;
        let config = match self.effective_mode() {
            SslMode::Disable | SslMode::Prefer | SslMode::Require => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
                .with_no_client_auth(),
            SslMode::VerifyCa => {
                let chain =
                    WebPkiServerVerifier::builder_with_provider(Arc::new(self.roots()?), provider)
                        .build()
                        .map_err(|e| format!("TLS: {e}"))?;
                builder
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(AnyName(chain)))
                    .with_no_client_auth()
            }
            SslMode::VerifyFull => builder
                .with_root_certificates(self.roots()?)
                .with_no_client_auth(),
        };
        Ok(MakeRustlsConnect::new(config))
    }

    fn roots(&self) -> Result<RootCertStore, String> {
        let mut roots = RootCertStore::empty();
        match &self.root_cert {
            Some(path) => {
                let shown = path.display();
                let certs = CertificateDer::pem_file_iter(path)
                    .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| format!("sslrootcert {shown}: {e}"))?;
                let (added, _) = roots.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(format!("sslrootcert {shown}: no certificate in it"));
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                roots.add_parsable_certificates(found.certs);
                if roots.is_empty() {
                    return Err(
                        "sslmode verify-ca/verify-full: the platform has no root certificates; \
                         name the server's CA with sslrootcert"
                            .to_owned(),
                    );
                }
            }
        }
        Ok(roots)
    }
}

/// Takes `sslmode` and `sslrootcert` out of a connection string, a URL
/// (`postgres://…?sslmode=verify-full&sslrootcert=ca.pem`) or `key=value` pairs
/// (`host=… sslmode=require`), and returns what is left with them.
///
/// # Errors
///
/// An `sslmode` that is not one of the five.
pub fn split(url: &str) -> Result<(String, Tls), String> {
    let mut mode = None;
    let mut root_cert = None;
    let mut take = |key: &str, value: String| match key {
        "sslmode" => {
            mode = Some(value);
            true
        }
        "sslrootcert" => {
            root_cert = Some(value);
            true
        }
        _ => false,
    };
    let rest = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        match url.split_once('?') {
            Some((base, query)) => {
                let kept: Vec<&str> = query
                    .split('&')
                    .filter(|pair| {
                        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                        !take(key, percent_decode(value))
                    })
                    .collect();
                if kept.is_empty() {
                    base.to_owned()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
            None => url.to_owned(),
        }
    } else {
        // Values of these two are taken unquoted; other pairs are left as they were.
        let kept: Vec<&str> = url
            .split_whitespace()
            .filter(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                !take(key, value.trim_matches('\'').to_owned())
            })
            .collect();
        kept.join(" ")
    };
    let mode = match mode.as_deref() {
        None | Some("prefer") => SslMode::Prefer,
        Some("disable") => SslMode::Disable,
        Some("require") => SslMode::Require,
        Some("verify-ca") => SslMode::VerifyCa,
        Some("verify-full") => SslMode::VerifyFull,
        Some(other) => {
            return Err(format!(
                "sslmode `{other}` is not supported: use disable, prefer, require, verify-ca or \
                 verify-full"
            ));
        }
    };
    let root_cert = root_cert
        .filter(|path| path != "system" && !path.is_empty())
        .map(PathBuf::from);
    Ok((rest, Tls { mode, root_cert }))
}

/// `%XX` escapes decoded, as in a URL's query; anything malformed is kept as it is.
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `prefer`/`require`: any certificate (libpq's meaning of these modes: encryption against
/// a passive eavesdropper, not against an impostor); the handshake's signatures are still
/// checked.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is verified in full; only a certificate that does not name the
/// host is let through (webpki checks the name after the chain).
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmode_and_sslrootcert_are_taken_out_of_the_string() {
        let (rest, tls) = split(
            "postgres://u@db:5432/shop?application_name=x&sslmode=verify-full&sslrootcert=%2Ftmp%2Fca%201.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u@db:5432/shop?application_name=x");
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(tls.root_cert, Some(PathBuf::from("/tmp/ca 1.pem")));
        assert_eq!(tls.pg_mode(), PgSslMode::Require);

        let (rest, tls) = split("postgres://u@db/shop?sslmode=disable").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode),
            ("postgres://u@db/shop", SslMode::Disable)
        );
        let (rest, tls) = split("postgres://u@db/shop").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode),
            ("postgres://u@db/shop", SslMode::Prefer)
        );

        let (rest, tls) =
            split("host=db user=u sslmode=require sslrootcert=/ca.pem dbname=shop").unwrap();
        assert_eq!(rest, "host=db user=u dbname=shop");
        assert_eq!(tls.mode, SslMode::Require);
        assert_eq!(tls.effective_mode(), SslMode::VerifyCa);

        let (_, tls) = split("postgres://db/x?sslmode=verify-ca&sslrootcert=system").unwrap();
        assert_eq!((tls.mode, tls.root_cert), (SslMode::VerifyCa, None));

        for bad in ["postgres://db/x?sslmode=allow", "host=db sslmode=verify"] {
            let e = split(bad).unwrap_err();
            assert!(e.contains("is not supported"), "{bad}: {e}");
        }
    }
}
