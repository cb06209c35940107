#include "TerminalOutput.hpp"

#include <cstdio>
#include <iostream>

namespace remat::cli {

namespace {

bool needsEscape(unsigned char b) { return (b < 0x20 && b != '\n' && b != '\t') || b == 0x7F || b == 0xC2; }

}  // namespace

void ControlEscapingBuffer::put(unsigned char b) {
  char buf[8];
  if (m_pendingC2) {
    m_pendingC2 = false;
    if (b >= 0x80 && b <= 0x9F) {
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(b));
      m_out->sputn(buf, 6);
      return;
    }
    m_out->sputc(static_cast<char>(0xC2));
  }
  if (b == 0xC2) {
    m_pendingC2 = true;
  } else if (b == 0x7F) {
    m_out->sputn("\\u007F", 6);
  } else if (b < 0x20 && b != '\n' && b != '\t') {
    std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(b));
    m_out->sputn(buf, 4);
  } else {
    m_out->sputc(static_cast<char>(b));
  }
}

void ControlEscapingBuffer::flushPending() {
  if (m_pendingC2) m_out->sputc(static_cast<char>(0xC2));
  m_pendingC2 = false;
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  put(static_cast<unsigned char>(traits_type::to_char_type(ch)));
  return ch;
}

std::streamsize ControlEscapingBuffer::xsputn(const char* s, std::streamsize n) {
  // Plain text goes on in runs; only the bytes that may need an escape are looked at one by one.
  std::streamsize run = 0;
  for (std::streamsize i = 0; i < n; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (!m_pendingC2 && !needsEscape(b)) continue;
    if (i > run) m_out->sputn(s + run, i - run);
    put(b);
    run = i + 1;
  }
  if (n > run) m_out->sputn(s + run, n - run);
  return n;
}

int ControlEscapingBuffer::sync() {
  // A lone 0xC2 stays held across a flush: the next write may complete its C1 control.
  return m_out->pubsync();
}

TerminalOutputGuard::TerminalOutputGuard()
    : m_coutBuffer(std::cout.rdbuf()), m_cerrBuffer(std::cerr.rdbuf()), m_out(m_coutBuffer), m_err(m_cerrBuffer) {
  std::cout.rdbuf(&m_out);
  std::cerr.rdbuf(&m_err);
}

TerminalOutputGuard::~TerminalOutputGuard() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(m_coutBuffer);
  std::cerr.rdbuf(m_cerrBuffer);
}

}  // namespace remat::cli
