#include <math.h>

double clean_b(double x) { return floor(x) + sinf((float)x); }
