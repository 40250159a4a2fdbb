//! Transfer codings, both ways (RFC 9112 §6.1, §7): the one coding the edge reads and
//! writes is `chunked`, applied once. hyper already refuses a request whose last coding is
//! not `chunked` (`identity`, `gzip`: its bare 400) and reads a request with both
//! `Transfer-Encoding` and `Content-Length` by its chunks, dropping the length and closing
//! the connection after the answer (§6.1 allows that). What reaches the proxy with another
//! coding in front of `chunked` is refused here, never forwarded: a coding the edge does not
//! implement is `501` (§6.1's SHOULD), `chunked` twice is `400` (§6.1: a sender MUST NOT
//! apply it twice). An origin's answer framed by anything but one `chunked` is the edge's
//! `502`: the client would otherwise get a body coded in a way no header tells it.

use http::HeaderMap;
use http::header::TRANSFER_ENCODING;

/// A request's transfer coding the edge refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadCoding {
    /// A coding other than `chunked` (`gzip, chunked`, `x-custom, chunked`): `501`.
    #[error("the request's Transfer-Encoding names a coding the edge does not implement")]
    Unknown,
    /// `chunked` more than once (`chunked, chunked`, or two lines): `400`.
    #[error("the request's Transfer-Encoding applies chunked more than once")]
    Repeated,
}

/// Whether `headers` frame a message as the edge accepts: no `Transfer-Encoding`, or exactly
/// one `chunked`.
pub fn check(headers: &HeaderMap) -> Result<(), BadCoding> {
    let mut chunked = 0_usize;
    let mut other = false;
    for coding in codings(headers) {
        if coding.eq_ignore_ascii_case("chunked") {
            chunked += 1;
        } else {
            other = true;
        }
    }
    if other {
        Err(BadCoding::Unknown)
    } else if chunked > 1 {
        Err(BadCoding::Repeated)
    } else {
        Ok(())
    }
}

/// Every coding named by every `Transfer-Encoding` line, in order; a value that is not text
/// counts as a coding the edge does not know.
fn codings(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(TRANSFER_ENCODING)
        .iter()
        .flat_map(|value| value.to_str().unwrap_or("\u{0}").split(','))
        .map(str::trim)
        .filter(|coding| !coding.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn framed(lines: &[&str]) -> Result<(), BadCoding> {
        let mut headers = HeaderMap::new();
        for line in lines {
            headers.append(
                TRANSFER_ENCODING,
                HeaderValue::from_str(line).expect("a value"),
            );
        }
        check(&headers)
    }

    #[test]
    fn one_chunked_or_none() {
        assert_eq!(framed(&[]), Ok(()));
        assert_eq!(framed(&["chunked"]), Ok(()));
        assert_eq!(framed(&["Chunked"]), Ok(()));
    }

    #[test]
    fn every_other_framing_is_refused() {
        for lines in [
            &["gzip, chunked"][..],
            &["identity"],
            &["x-custom, chunked"],
            &["gzip", "chunked"],
            &["chunked, gzip"],
        ] {
            assert_eq!(framed(lines), Err(BadCoding::Unknown), "{lines:?}");
        }
        for lines in [&["chunked, chunked"][..], &["chunked", "chunked"]] {
            assert_eq!(framed(lines), Err(BadCoding::Repeated), "{lines:?}");
        }
    }
}
