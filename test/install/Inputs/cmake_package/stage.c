#include "stage.h"
int stage_weight(int stage) { return stage * 10; }
