// SourceMap: see SourceMap.h.
#include "SourceMap.h"

#include <algorithm>

namespace cfacc {

void SourceMap::appendCopied(unsigned Length, unsigned OriginalOffset) {
  if (Length == 0)
    return;
  Pieces.push_back({OutputSize, Length, OriginalOffset, true});
  OutputSize += Length;
}

void SourceMap::appendSynthesized(unsigned Length, unsigned AnchorOffset) {
  if (Length == 0)
    return;
  Pieces.push_back({OutputSize, Length, AnchorOffset, false});
  OutputSize += Length;
}

unsigned SourceMap::toOriginal(unsigned OutputOffset) const {
  if (Pieces.empty())
    return OutputOffset;
  // Last piece whose OutputBegin <= OutputOffset.
  auto It = std::upper_bound(Pieces.begin(), Pieces.end(), OutputOffset,
                             [](unsigned Off, const Piece &P) { return Off < P.OutputBegin; });
  if (It == Pieces.begin())
    return Pieces.front().OriginalBegin;
  const Piece &P = *std::prev(It);
  unsigned Into = std::min(OutputOffset - P.OutputBegin, P.Length);
  return P.Copied ? P.OriginalBegin + Into : P.OriginalBegin;
}

unsigned SourceMap::toOutput(unsigned OriginalOffset) const {
  for (const Piece &P : Pieces) {
    if (P.Copied && OriginalOffset >= P.OriginalBegin && OriginalOffset < P.OriginalBegin + P.Length)
      return P.OutputBegin + (OriginalOffset - P.OriginalBegin);
    if (!P.Copied && P.OriginalBegin == OriginalOffset && P.OutputBegin > 0)
      return P.OutputBegin;
  }
  return OutputSize;
}

} // namespace cfacc
