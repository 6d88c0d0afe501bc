//! Stdio framing: the input cut into `\n`-terminated lines of bounded length.

use tokio::io::{AsyncRead, AsyncReadExt};

/// One line read from the input.
pub(crate) enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

/// Reads `\n`-terminated lines of at most `max` bytes; a longer line is consumed up to its
/// newline without being kept. Cancel-safe: what was read stays in the reader between calls.
///
/// Reads go straight into the buffer a long line is handed out in. A line of at least a
/// quarter of a read that starts the buffer, and is no shorter than what was read after
/// it, takes the buffer with it (what follows is copied to a new one); any other line is
/// copied out. A line that goes on past what was read is moved to the front of the buffer
/// first, so a large message is copied at most for the part of it that shared a read with
/// the lines before it.
pub(crate) struct LineReader<R> {
    inner: R,
    /// What was read and not yet handed out is `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    /// `buf[start..start + searched]` has no newline.
    searched: usize,
    /// The room given to a read (the transport's is 64 KiB).
    read_size: usize,
    max: usize,
    /// Reading past the rest of a line longer than `max`.
    skipping: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(inner: R, read_size: usize, max: usize) -> Self {
        LineReader {
            inner,
            buf: Vec::new(),
            start: 0,
            searched: 0,
            read_size: read_size.max(1),
            max,
            skipping: false,
        }
    }

    pub(crate) async fn next(&mut self) -> std::io::Result<Line> {
        loop {
            if let Some(line) = self.take_line() {
                return Ok(line);
            }
            if self.skipping || self.buf.len() - self.start > self.max {
                // Longer than the limit: what was read of it is dropped as it comes.
                self.skipping = true;
                self.buf.truncate(self.start);
                self.searched = 0;
            }
            self.make_room();
            if self.inner.read_buf(&mut self.buf).await? == 0 {
                return Ok(self.at_end());
            }
        }
    }

    /// The next whole line already read, if there is one.
    fn take_line(&mut self) -> Option<Line> {
        let from = self.start + self.searched;
        let unsearched = self.buf.get(from..).unwrap_or_default();
        if unsearched.is_empty() {
            return None;
        }
        let Some(at) = ferromcp_core::bytes::find(b'\n', unsearched) else {
            self.searched = self.buf.len() - self.start;
            return None;
        };
        let end = from + at;
        self.searched = 0;
        let too_long = std::mem::take(&mut self.skipping) || end - self.start > self.max;
        if too_long {
            self.start = end + 1;
            return Some(Line::TooLong);
        }
        let after = self.buf.len() - (end + 1);
        let length = end - self.start;
        if self.start == 0 && length >= after && length >= self.read_size / 4 {
            // The buffer goes with the line; what was read after it moves to a new one, with
            // room for a line half as long again (so a client that sends large messages
            // has each read into a buffer that holds it whole).
            let room = (length + length / 2).max(self.read_size).max(after);
            let mut rest = Vec::with_capacity(room);
            rest.extend_from_slice(self.buf.get(end + 1..).unwrap_or_default());
            self.buf.truncate(end);
            let mut line = std::mem::replace(&mut self.buf, rest);
            if line.capacity() / 2 > line.len() {
                // Grown for a longer line before: what it does not use goes back (in place).
                line.shrink_to_fit();
            }
            return Some(Line::Text(line));
        }
        let line = self.buf.get(self.start..end).unwrap_or_default().to_vec();
        self.start = end + 1;
        Some(Line::Text(line))
    }

    /// Room for the next read after what is buffered: the line under way moved to the
    /// front, and, when less than half a read is left, as much room again as it has taken
    /// (at least a read).
    fn make_room(&mut self) {
        if self.start == self.buf.len() {
            self.buf.clear();
        } else if self.start > 0 {
            self.buf.drain(..self.start);
        }
        self.start = 0;
        let partial = self.buf.len();
        if self.buf.capacity() - partial < (self.read_size / 2).max(1) {
            self.buf
                .reserve(partial.min(self.max.saturating_add(1)).max(self.read_size));
        }
    }

    /// What end of input leaves: a line without its newline, or nothing.
    fn at_end(&mut self) -> Line {
        if std::mem::take(&mut self.skipping) {
            self.buf.clear();
            self.start = 0;
            return Line::TooLong;
        }
        if self.start == self.buf.len() {
            return Line::Eof;
        }
        let line = match self.start {
            0 => std::mem::take(&mut self.buf),
            start => self.buf.get(start..).unwrap_or_default().to_vec(),
        };
        self.buf.clear();
        self.start = 0;
        self.searched = 0;
        Line::Text(line)
    }

    /// Whether a whole line is already buffered (so reading it will not wait).
    pub(super) fn line_ready(&self) -> bool {
        let from = self.start + self.searched;
        let unsearched = self.buf.get(from..).unwrap_or_default();
        !unsearched.is_empty() && ferromcp_core::bytes::find(b'\n', unsearched).is_some()
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, ReadBuf};

    use super::{Line, LineReader};

    /// Hands `data` out in reads of the given sizes (then what is left), noting where each
    /// read put its bytes.
    struct Reads {
        data: Vec<u8>,
        at: usize,
        pieces: Vec<usize>,
        /// (first byte's offset in `data`, its address, length) of each read.
        placed: Vec<(usize, usize, usize)>,
    }

    impl Reads {
        fn new(data: Vec<u8>, pieces: Vec<usize>) -> Self {
            Reads {
                data,
                at: 0,
                pieces,
                placed: Vec::new(),
            }
        }

        /// Where the read that carried byte `offset` of the data put it.
        fn address_of(&self, offset: usize) -> usize {
            let (from, address, _) = self
                .placed
                .iter()
                .copied()
                .find(|&(from, _, n)| (from..from + n).contains(&offset))
                .unwrap();
            address + (offset - from)
        }
    }

    impl AsyncRead for Reads {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let piece = self.pieces.get(self.placed.len()).copied();
            let left = self.data.len() - self.at;
            let n = piece.unwrap_or(left).min(left).min(buf.remaining());
            let place = buf.initialize_unfilled_to(n);
            place.copy_from_slice(&self.data[self.at..self.at + n]);
            let address = place.as_ptr() as usize;
            buf.advance(n);
            let at = self.at;
            self.placed.push((at, address, n));
            self.at += n;
            Poll::Ready(Ok(()))
        }
    }

    fn text(line: Line) -> Vec<u8> {
        match line {
            Line::Text(text) => text,
            Line::TooLong => panic!("too long"),
            Line::Eof => panic!("end of input"),
        }
    }

    const READ: usize = 64 * 1024;

    #[tokio::test]
    async fn long_lines_are_handed_out_where_they_were_read() {
        let (first, second) = (vec![b'x'; 100_000], vec![b'y'; 90_000]);
        let mut data = first.clone();
        data.push(b'\n');
        data.extend_from_slice(&second);
        data.extend_from_slice(b"\nshort\n");
        // As a pipe delivers them: 64 KiB, then the rest of each line.
        let pieces = vec![READ, 100_001 - READ, READ, 90_001 - READ];
        let mut reader = LineReader::new(Reads::new(data, pieces), READ, 1 << 20);

        // The first outgrows the first read's buffer (which may move it once, as the
        // buffer grows); from its second read on it is where the reads put it.
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, first);
        let end = line.as_ptr() as usize + line.len() - 1;
        assert_eq!(end, reader.inner.address_of(99_999));
        // The second is read into a buffer that holds it whole: not moved at all.
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, second);
        assert_eq!(line.as_ptr() as usize, reader.inner.address_of(100_001));
        let end = line.as_ptr() as usize + line.len() - 1;
        assert_eq!(end, reader.inner.address_of(190_000));
        // A short line is copied out, and the reader keeps its buffer.
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, b"short");
        assert_ne!(line.as_ptr() as usize, reader.inner.address_of(190_002));
        assert!(matches!(reader.next().await.unwrap(), Line::Eof));
    }

    #[tokio::test]
    async fn lines_of_many_reads_are_read_in_place_once_the_buffer_has_grown() {
        const PIECE: usize = 16 * 1024;
        let long = vec![b'z'; 200_000];
        let mut data = Vec::new();
        let mut pieces = Vec::new();
        for _ in 0..3 {
            data.extend_from_slice(&long);
            data.push(b'\n');
            pieces.extend(std::iter::repeat_n(PIECE, 200_001 / PIECE));
            pieces.push(200_001 % PIECE);
        }
        let mut reader = LineReader::new(Reads::new(data, pieces), PIECE, 1 << 20);
        for n in 0..3 {
            let line = text(reader.next().await.unwrap());
            assert_eq!(line, long);
            if n > 0 {
                // Read whole into the buffer the line before left: never grown, never moved.
                let first = n * 200_001;
                assert_eq!(line.as_ptr() as usize, reader.inner.address_of(first));
            }
        }
        assert!(matches!(reader.next().await.unwrap(), Line::Eof));
    }

    #[tokio::test]
    async fn a_long_line_after_short_ones_is_handed_out_where_its_last_read_put_it() {
        let long = vec![b'y'; 50_000];
        let mut data = b"a\nbb\n".to_vec();
        data.extend_from_slice(&long);
        data.extend_from_slice(b"\nc");
        let mut reader = LineReader::new(Reads::new(data, Vec::new()), 16 * 1024, 1 << 20);
        assert_eq!(text(reader.next().await.unwrap()), b"a");
        assert_eq!(text(reader.next().await.unwrap()), b"bb");
        let line = text(reader.next().await.unwrap());
        assert_eq!(line, long);
        let end = line.as_ptr() as usize + line.len() - 1;
        assert_eq!(end, reader.inner.address_of(5 + 50_000 - 1));
        // The last line has no newline.
        assert_eq!(text(reader.next().await.unwrap()), b"c");
        assert!(matches!(reader.next().await.unwrap(), Line::Eof));
    }
}
