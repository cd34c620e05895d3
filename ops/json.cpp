// Recursive-descent JSON parser used only for safetensors headers and shard indexes.
#include "json.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ocr {
namespace {

struct Parser {
  const char* p;
  const char* end;
  const char* begin;
  int depth = 0;

  [[noreturn]] void fail(const char* what) {
    throw std::runtime_error(std::string("invalid JSON at byte ") + std::to_string(p - begin) + ": " + what);
  }
  void ws() {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  }
  bool lit(const char* s) {
    size_t n = std::strlen(s);
    if (static_cast<size_t>(end - p) >= n && std::memcmp(p, s, n) == 0) {
      p += n;
      return true;
    }
    return false;
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80)
      out += static_cast<char>(cp);
    else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  unsigned hex4() {
    if (end - p < 4) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
      char c = *p++;
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return v;
  }
  std::string str() {
    if (p >= end || *p != '"') fail("expected string");
    p++;
    std::string out;
    while (true) {
      if (p >= end) fail("unterminated string");
      char c = *p++;
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p >= end) fail("unterminated escape");
      char e = *p++;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
            p += 2;
            unsigned lo = hex4();
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          utf8(out, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
    return out;
  }
  Json value() {
    if (++depth > 64) fail("nesting too deep");
    ws();
    if (p >= end) fail("unexpected end");
    Json j;
    char c = *p;
    if (c == '{') {
      j.kind = Json::Object;
      p++;
      ws();
      if (p < end && *p == '}') {
        p++;
        depth--;
        return j;
      }
      while (true) {
        ws();
        std::string k = str();
        ws();
        if (p >= end || *p != ':') fail("expected ':'");
        p++;
        j.object.emplace_back(std::move(k), value());
        ws();
        if (p < end && *p == ',') {
          p++;
          continue;
        }
        if (p < end && *p == '}') {
          p++;
          break;
        }
        fail("expected ',' or '}'");
      }
    } else if (c == '[') {
      j.kind = Json::Array;
      p++;
      ws();
      if (p < end && *p == ']') {
        p++;
        depth--;
        return j;
      }
      while (true) {
        j.array.push_back(value());
        ws();
        if (p < end && *p == ',') {
          p++;
          continue;
        }
        if (p < end && *p == ']') {
          p++;
          break;
        }
        fail("expected ',' or ']'");
      }
    } else if (c == '"') {
      j.kind = Json::String;
      j.string = str();
    } else if (lit("true")) {
      j.kind = Json::Bool;
      j.boolean = true;
    } else if (lit("false")) {
      j.kind = Json::Bool;
    } else if (lit("null")) {
      j.kind = Json::Null;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const char* s = p;
      if (*p == '-') p++;
      bool integer = true;
      while (p < end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')) {
        if (*p == '.' || *p == 'e' || *p == 'E') integer = false;
        p++;
      }
      std::string num(s, p);
      char* stop = nullptr;
      j.number = std::strtod(num.c_str(), &stop);
      if (stop != num.c_str() + num.size() || !std::isfinite(j.number)) fail("bad number");
      j.kind = Json::Number;
      j.is_integer = integer;
    } else {
      fail("unexpected character");
    }
    depth--;
    return j;
  }
};

}  // namespace

Json parse_json(const char* text, size_t length) {
  Parser ps{text, text + length, text};
  Json j = ps.value();
  ps.ws();
  if (ps.p != ps.end) ps.fail("trailing characters");
  return j;
}

}  // namespace ocr
