#pragma once

#include <ostream>
#include <streambuf>

namespace remat::cli {

/// A stream buffer that passes text on to another with the control characters a terminal would obey
/// made visible: C0 controls but line feed and tab as `\xHH` (ESC starts colour, cursor and title
/// sequences; BEL, NUL and carriage return garble the line), DEL and the C1 controls (UTF-8 C2 80 to
/// C2 9F; some terminals take U+009B for ESC [) as `\uHHHH`, which is also how JSON writes them, so
/// JSON output stays valid JSON with the same content.
class ControlEscapingBuffer : public std::streambuf {
 public:
  explicit ControlEscapingBuffer(std::streambuf* out) : m_out(out) {}
  ControlEscapingBuffer(const ControlEscapingBuffer&) = delete;
  ControlEscapingBuffer& operator=(const ControlEscapingBuffer&) = delete;
  ~ControlEscapingBuffer() override { flushPending(); }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void put(unsigned char byte);
  void flushPending();

  std::streambuf* m_out;
  bool m_pendingC2 = false;  ///< a 0xC2 byte held until the next one tells whether it starts a C1 control
};

/// While alive, everything the command line prints on std::cout and std::cerr passes through a
/// ControlEscapingBuffer: names come from untrusted graph and plan files and reach the terminal in
/// tables, headers and messages from deep in the engine alike, so the escape sits where all of them
/// leave. The progress bar writes its own control sequences through C stdio, beside this.
class TerminalOutputGuard {
 public:
  TerminalOutputGuard();
  TerminalOutputGuard(const TerminalOutputGuard&) = delete;
  TerminalOutputGuard& operator=(const TerminalOutputGuard&) = delete;
  ~TerminalOutputGuard();

 private:
  std::streambuf* m_coutBuffer;
  std::streambuf* m_cerrBuffer;
  ControlEscapingBuffer m_out;
  ControlEscapingBuffer m_err;
};

}  // namespace remat::cli
