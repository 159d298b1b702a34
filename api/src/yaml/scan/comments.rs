//! Comments, for the style-keeping reader (`yaml::styled`) only.
//!
//! go-yaml v3 decides where a comment belongs while it scans: a comment on
//! the line of a token is that token's *line* comment; a block of comment
//! lines is a *head* comment of what follows, or a *foot* comment of what
//! came before when it sits right under it (no blank line between) or is
//! dedented below the current block. Each comment is tied to a token
//! position; the parser hands it to the first token at or past that
//! position. Block ends are moved back before the foot comments of the
//! blocks they close, so those comments are not taken for the next
//! block's heads.
//!
//! The ordinary reader never turns this on: it skips comments, and its
//! speed does not depend on this file.

use std::collections::VecDeque;

use super::{Kind, Mark, Scanner};

/// One comment as go-yaml records it: exactly one of `head`, `line` and
/// `foot` is set (comment lines joined by `\n`, each starting with `#`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Comment {
    /// Where the scan that found it started.
    pub scan_mark: Mark,
    /// The comment goes to the first token starting at or after this.
    pub token_mark: Mark,
    /// Where the comment's first line starts (column counted from 1 for
    /// head and foot comments, as go-yaml counts there).
    pub start_mark: Mark,
    /// Where the scan that found it ended (zero for line comments).
    pub end_mark: Mark,
    pub head: String,
    pub line: String,
    pub foot: String,
}

/// The comments found and not yet taken by the parser.
#[derive(Debug, Default)]
pub(super) struct Comments {
    pub(super) queue: VecDeque<Comment>,
}

/// How far go-yaml looks ahead for a comment, in bytes.
const LOOKAHEAD: usize = 512;

impl Scanner<'_> {
    /// Whether comments are being collected.
    #[inline]
    pub(super) fn keeps_comments(&self) -> bool {
        self.comments.is_some()
    }

    /// The comments collected and not yet taken.
    pub(crate) fn comments_mut(&mut self) -> Option<&mut VecDeque<Comment>> {
        self.comments.as_mut().map(|c| &mut c.queue)
    }

    fn record(&mut self, comment: Comment) {
        if let Some(c) = self.comments.as_mut() {
            c.queue.push_back(comment);
        }
    }

    /// The kind and mark of the token `back` places from the end of the
    /// queue (0: the last one fetched).
    fn queued(&self, back: usize) -> Option<(Kind, Mark)> {
        let len = self.queue.len();
        let t = self.queue.get(len.checked_sub(back + 1)?)?;
        Some((t.tok.kind(), t.mark))
    }

    /// The position a comment later on the current line belongs to: the
    /// token before a `:` (block) or `,` (flow) about to be scanned, so that
    /// `key: # c` and `a, # c` comment what precedes them.
    pub(super) fn line_comment_mark(&self, next: u8) -> Mark {
        let before_indicator =
            (self.flow_level == 0 && next == b':') || (self.flow_level > 0 && next == b',');
        match self.queued(0) {
            Some((_, mark)) if before_indicator => mark,
            _ => self.mark,
        }
    }

    /// A comment later on the line of the token just scanned, recorded as
    /// that token's line comment.
    pub(super) fn scan_line_comment(&mut self, token_mark: Mark) {
        if self.newlines > 0 {
            return;
        }
        let mut k = 0;
        while k < LOOKAHEAD && self.is_blank(k) {
            k += 1;
        }
        if k >= LOOKAHEAD || self.at(k) != b'#' {
            return;
        }
        // Only blanks lie before the '#'.
        for _ in 0..k {
            self.skip();
        }
        let start_mark = self.mark;
        let text = self.read_comment_line();
        if !text.is_empty() {
            self.record(Comment {
                token_mark,
                start_mark,
                line: text,
                ..Comment::default()
            });
        }
    }

    /// Copy the rest of the line (a comment) and move past it.
    fn read_comment_line(&mut self) -> String {
        let from = self.pos;
        while !self.is_breakz(0) {
            self.skip();
        }
        String::from_utf8_lossy(self.slice(from, self.pos)).into_owned()
    }

    /// go-yaml turns the line comment of a lone `-` into a head comment of
    /// what follows the entry (`- # c` then the item on the next line);
    /// called at each line start while skipping to the next token.
    pub(super) fn retarget_entry_comment(&mut self) {
        let (Some((a, _)), Some((b, _))) = (self.queued(1), self.queued(0)) else {
            return;
        };
        if a != Kind::BlockSequenceStart || b != Kind::BlockEntry || self.is_break(0) {
            return;
        }
        let mark = self.mark;
        let Some(last) = self.comments.as_mut().and_then(|c| c.queue.back_mut()) else {
            return;
        };
        if last.line.is_empty() {
            return;
        }
        last.head = std::mem::take(&mut last.line);
        // On the line before: it heads what follows; otherwise it stays
        // where it is and heads the entry itself.
        if last.start_mark.line + 1 == mark.line {
            last.token_mark = mark;
        }
    }

    /// Scan one or more comment lines (the scanner is at a `#`) and record
    /// them as foot comments of what precedes and head comments of what
    /// follows, the way go-yaml splits them: comment lines right under the
    /// preceding content (no blank line between), or dedented below the
    /// current indentation, are feet; the rest is a head.
    ///
    /// `scan_mark` is where the skip to the next token started. go-yaml
    /// counts the lookahead in bytes but positions in characters; both are
    /// kept here as it keeps them.
    pub(super) fn scan_comments(&mut self, scan_mark: Mark) {
        let (token_kind, token_start) = match self.queued(0) {
            Some((Kind::FlowEntry, _)) if self.queue.len() > 1 => {
                self.queued(1).unwrap_or((Kind::FlowEntry, self.mark))
            }
            Some(t) => t,
            None => (Kind::StreamStart, Mark::default()),
        };
        let mut scan_mark = scan_mark;
        let mut token_mark = token_start;
        let mut start_mark = Mark::default();
        let indent_floor = |indent: isize| indent.max(0);
        let mut next_indent = indent_floor(self.indent);
        let mut recent_empty = false;
        let mut first_empty = self.newlines <= 1;
        let mut line = self.mark.line;
        let mut column = self.mark.col;
        let mut text = String::new();
        // The line a comment must start on to be a foot of the content
        // before it: the line after that content.
        let foot_line: isize = if scan_mark.line > 0 {
            let mut l = self.mark.line as isize - self.newlines as isize + 1;
            if self.newlines == 0 && self.mark.col > 1 {
                l += 1;
            }
            l
        } else {
            -1
        };
        let mut peek = 0;
        while peek < LOOKAHEAD {
            column += 1;
            if self.is_blank(peek) {
                peek += 1;
                continue;
            }
            let c = self.at(peek);
            let here = Mark {
                index: self.mark.index + peek,
                line,
                col: column,
            };
            let close_flow = self.flow_level > 0 && (c == b']' || c == b'}');
            if close_flow || self.is_breakz(peek) {
                if close_flow || !recent_empty {
                    let dedented = (start_mark.col as isize) - 1 < next_indent;
                    let right_under =
                        start_mark.line as isize == foot_line && token_kind != Kind::Value;
                    if close_flow || (first_empty && (right_under || dedented)) {
                        // The comment so far ends the preceding content.
                        if !text.is_empty() {
                            if dedented {
                                token_mark = start_mark;
                            }
                            let end = here;
                            self.record(Comment {
                                scan_mark,
                                token_mark,
                                start_mark,
                                end_mark: end,
                                foot: std::mem::take(&mut text),
                                ..Comment::default()
                            });
                            scan_mark = end;
                            token_mark = end;
                        }
                    } else if !text.is_empty() && !self.is_z(peek) {
                        text.push('\n');
                    }
                }
                if !self.is_break(peek) {
                    break;
                }
                first_empty = false;
                recent_empty = true;
                column = 0;
                line += 1;
                peek += 1;
                continue;
            }
            if !text.is_empty() && (column as isize) - 1 < next_indent && column != start_mark.col {
                // A comment at another indentation ends the one before.
                let end = here;
                self.record(Comment {
                    scan_mark,
                    token_mark,
                    start_mark,
                    end_mark: end,
                    foot: std::mem::take(&mut text),
                    ..Comment::default()
                });
                scan_mark = end;
                token_mark = end;
            }
            if c != b'#' {
                break;
            }
            if text.is_empty() {
                start_mark = here;
            } else {
                text.push('\n');
            }
            recent_empty = false;
            // Move to the '#' (across blank lines), then take the line.
            let seen = self.mark.index + peek;
            while self.mark.index < seen && !self.is_z(0) {
                if self.is_break(0) {
                    self.skip_line();
                } else {
                    self.skip();
                }
            }
            text.push_str(&self.read_comment_line());
            // go-yaml resumes one byte further on: past the line break.
            peek = 1;
            column = 0;
            line = self.mark.line;
            next_indent = indent_floor(self.indent);
        }
        if !text.is_empty() {
            self.record(Comment {
                scan_mark,
                token_mark: start_mark,
                start_mark,
                end_mark: Mark {
                    index: (self.mark.index + peek).saturating_sub(1),
                    line,
                    col: column,
                },
                head: text,
                ..Comment::default()
            });
        }
    }

    /// Where the BLOCK-END closing the current indentation goes: before
    /// the foot comments of that block found since `block_mark`, so that
    /// they stay with it.
    pub(super) fn block_end_mark(&self, block_mark: Mark) -> Mark {
        let Some(c) = self.comments.as_ref() else {
            return block_mark;
        };
        let mut mark = block_mark;
        let mut stop = block_mark.index as isize;
        for comment in c.queue.iter().rev() {
            if (comment.end_mark.index as isize) < stop {
                break;
            }
            if comment.start_mark.col as isize == self.indent + 1 {
                mark = comment.start_mark;
            }
            stop = comment.scan_mark.index as isize;
        }
        mark
    }
}
