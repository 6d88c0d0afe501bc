//! The stdio transport's line framer, on an arbitrary byte stream delivered in arbitrary
//! pieces (some reads not ready at first), with an arbitrary read buffer and line limit.
//!
//! Properties: the framer yields exactly the lines of the stream, split at `\n`, with every
//! line longer than the limit replaced by one "too long" marker, and the final unterminated
//! line delivered at end of input; so the same lines however the input is split.
#![no_main]

use std::pin::Pin;
use std::task::{Context, Poll};

use arbitrary::Arbitrary;
use ferromcp::__fuzz::{FramedLine, frame_lines};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncRead, ReadBuf};

#[derive(Debug, Arbitrary)]
struct Input {
    stream: Vec<u8>,
    /// Lengths of the pieces the stream arrives in (cycled; 0 means a read that is not ready
    /// yet and wakes itself, after which one byte comes).
    pieces: Vec<u8>,
    buffer: u8,
    max: u16,
}

/// Hands out `data` in the given piece lengths.
struct Pieces<'a> {
    data: &'a [u8],
    pieces: &'a [u8],
    next: usize,
    waited: bool,
}

impl AsyncRead for Pieces<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let piece = match self.pieces.len() {
            0 => usize::MAX,
            n => usize::from(self.pieces[self.next % n]),
        };
        self.next = self.next.wrapping_add(1);
        if piece == 0 && !self.data.is_empty() && !std::mem::replace(&mut self.waited, true) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.waited = false;
        let n = piece.max(1).min(self.data.len()).min(buf.remaining());
        let (now, rest) = self.data.split_at(n);
        buf.put_slice(now);
        self.data = rest;
        Poll::Ready(Ok(()))
    }
}

/// The lines of `stream` as the transport must see them.
fn reference(stream: &[u8], max: usize) -> Vec<FramedLine> {
    let mut lines: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    // After the last `\n` (or in an empty stream) comes an empty remainder: not a line.
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|l| match l.len() <= max {
            true => FramedLine::Text(l.to_vec()),
            false => FramedLine::TooLong,
        })
        .collect()
}

fuzz_target!(|input: Input| {
    let max = usize::from(input.max);
    let reader = Pieces {
        data: &input.stream,
        pieces: &input.pieces,
        next: 0,
        waited: false,
    };
    let got = mcp_fuzz::block_on(frame_lines(reader, usize::from(input.buffer), max))
        .expect("an in-memory stream does not fail");
    assert_eq!(got, reference(&input.stream, max));
});
