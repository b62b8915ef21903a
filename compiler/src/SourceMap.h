// SourceMap: maps offsets in a desugared buffer back to the original file.
//
// The extension lexer builds the desugared text as a sequence of pieces.
// A piece is either copied verbatim from the original (offsets map one to
// one) or synthesized (every offset in it maps to one anchor: the original
// construct it was generated for). Pieces are contiguous, sorted and cover
// the whole output, so a lookup is a binary search.
#ifndef CFACC_SOURCE_MAP_H
#define CFACC_SOURCE_MAP_H

#include <vector>

namespace cfacc {

class SourceMap {
public:
  // Appends a piece of `Length` output bytes. Copied pieces start at
  // `OriginalOffset`; synthesized ones map entirely to it.
  void appendCopied(unsigned Length, unsigned OriginalOffset);
  void appendSynthesized(unsigned Length, unsigned AnchorOffset);

  // Original offset of the output byte at `OutputOffset` (clamped to the end).
  unsigned toOriginal(unsigned OutputOffset) const;

  // An output offset that maps back to OriginalOffset: inside the copied
  // piece holding it, else the first synthesized piece anchored there.
  unsigned toOutput(unsigned OriginalOffset) const;

  unsigned outputSize() const { return OutputSize; }

private:
  struct Piece {
    unsigned OutputBegin;
    unsigned Length;
    unsigned OriginalBegin;
    bool Copied;
  };
  std::vector<Piece> Pieces;
  unsigned OutputSize = 0;
};

} // namespace cfacc
#endif
