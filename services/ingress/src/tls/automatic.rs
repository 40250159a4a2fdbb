//! HSTS on the answers hyper writes itself. A request hyper's HTTP/1.1 parser refuses (a
//! malformed request line or header: `400`; a head past its buffer: `431`; a URI past its
//! limit: `414`) never reaches a service: hyper writes a fixed head and closes, with no hook
//! to add a header. Over TLS that head must carry HSTS like every other answer, so the
//! connection's writes pass through here and that one head gets the header line.
//!
//! The head is recognised exactly: hyper writes it last on the connection (it closes after),
//! so it ends the buffer handed to this writer; it is one of three status lines followed by
//! exactly `connection: close`, `content-length: 0` and a `date`. An answer *head* of the
//! edge's cannot be that (on HTTPS every one carries HSTS), but an origin's *body* can hold
//! those very bytes, and a body framed by its length ends the buffer too. So the service
//! tells the writer, through [`Answering`], the last bytes of body it handed hyper
//! ([`Told`]); bytes that end with them are the body's and pass untouched. After an upgrade
//! the bytes are a tunnel's, and nothing is looked at any more.

use crate::proxy::HSTS;
use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The status lines hyper's server writes for a request it cannot parse.
const STATUS_LINES: [&[u8]; 3] = [
    b"HTTP/1.1 400 Bad Request\r\n",
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
    b"HTTP/1.1 414 URI Too Long\r\n",
];
/// What follows the status line, up to the date's value.
const FIELDS: &[u8] = b"connection: close\r\ncontent-length: 0\r\ndate: ";
/// An IMF-fixdate (`Tue, 01 Dec 2026 19:56:05 GMT`) and the end of the head.
const DATE_AND_END: usize = 29 + 4;

/// How many of the last body bytes are remembered: more than a whole automatic head.
const TAIL: usize = 256;

/// What a connection's service tells its writer.
#[derive(Debug, Default)]
pub struct Answering {
    switched: AtomicBool,
    tail: Mutex<Vec<u8>>,
}

impl Answering {
    /// The connection became a tunnel: its bytes are no longer HTTP answers.
    pub fn switch(&self) {
        self.switched.store(true, Ordering::Relaxed);
    }

    /// Remembers `data`, handed to hyper as answer body, as the last of it.
    fn record(&self, data: &[u8]) {
        let mut tail = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        let keep = data.len().min(TAIL);
        tail.extend_from_slice(&data[data.len() - keep..]);
        let excess = tail.len().saturating_sub(TAIL);
        tail.drain(..excess);
    }

    /// Whether `buf` ends with the last body bytes handed to hyper (as far as both go).
    fn ends_with_body(&self, buf: &[u8]) -> bool {
        let tail = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        let overlap = tail.len().min(buf.len());
        overlap > 0 && buf[buf.len() - overlap..] == tail[tail.len() - overlap..]
    }
}

/// A service's answer body on a connection with an [`Automatic`] writer: each piece of data
/// is told to the writer before hyper gets it.
pub struct Told<B> {
    inner: B,
    answering: Arc<Answering>,
}

impl<B> Told<B> {
    /// `inner`, told to `answering`.
    pub fn new(inner: B, answering: Arc<Answering>) -> Self {
        Self { inner, answering }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for Told<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if let Some(data) = frame
            .as_ref()
            .and_then(|frame| frame.as_ref().ok()?.data_ref())
        {
            self.answering.record(data);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A connection's stream whose automatic answers get HSTS.
pub struct Automatic<S> {
    inner: S,
    hsts: bool,
    answering: Arc<Answering>,
    pending: Vec<u8>,
}

impl<S> Automatic<S> {
    /// `hsts` off leaves every byte alone; `answering` is what the connection's service
    /// tells.
    pub fn new(inner: S, hsts: bool, answering: Arc<Answering>) -> Self {
        Self {
            inner,
            hsts,
            answering,
            pending: Vec::new(),
        }
    }

    /// Where hyper's automatic head starts in `buf`, when `buf` ends with one.
    fn automatic_head(&self, buf: &[u8]) -> Option<usize> {
        if !self.hsts
            || self.answering.switched.load(Ordering::Relaxed)
            || self.answering.ends_with_body(buf)
        {
            return None;
        }
        STATUS_LINES.iter().find_map(|status| {
            let length = status.len() + FIELDS.len() + DATE_AND_END;
            let start = buf.len().checked_sub(length)?;
            let head = &buf[start..];
            let fields = &head[status.len()..];
            (head.starts_with(status)
                && fields.starts_with(FIELDS)
                && head.ends_with(b" GMT\r\n\r\n"))
            .then_some(start)
        })
    }
}

/// `head` with the HSTS line after its status line.
fn with_hsts(head: &[u8]) -> Vec<u8> {
    let status_end = head
        .windows(2)
        .position(|pair| pair == b"\r\n")
        .map_or(head.len(), |at| at + 2);
    let mut bytes = Vec::with_capacity(head.len() + 64);
    bytes.extend_from_slice(&head[..status_end]);
    bytes.extend_from_slice(b"strict-transport-security: ");
    bytes.extend_from_slice(HSTS.as_bytes());
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(&head[status_end..]);
    bytes
}

impl<S: AsyncWrite + Unpin> Automatic<S> {
    /// Writes what was taken over from hyper before anything else.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let written = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..written);
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Automatic<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Automatic<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        match self.automatic_head(buf) {
            // What comes before it goes out first; hyper hands the rest back.
            Some(start) if start > 0 => Pin::new(&mut self.inner).poll_write(cx, &buf[..start]),
            Some(_) => {
                self.pending = with_hsts(buf);
                Poll::Ready(Ok(buf.len()))
            }
            None => Pin::new(&mut self.inner).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests;
