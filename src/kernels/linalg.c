/* Det by Gaussian elimination with partial pivoting (the pivot with the largest magnitude
 * keeps the elimination stable); each row swap flips the sign. */
#include "kernels/linalg.h"

#include <math.h>

void kern_det(tosac_dtype dt, int64_t batch, int64_t m, const void *x, void *y, double *a)
{
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t i = 0; i < m * m; i++)
            a[i] = kern_get_f64(dt, x, b * m * m + i);
        double det = 1.0;
        for (int64_t col = 0; col < m && det != 0.0; col++) {
            int64_t piv = col;
            for (int64_t r = col + 1; r < m; r++)
                if (fabs(a[r * m + col]) > fabs(a[piv * m + col]))
                    piv = r;
            if (a[piv * m + col] == 0.0) {
                det = 0.0;
                break;
            }
            if (piv != col) {
                for (int64_t k = 0; k < m; k++) {
                    double t = a[col * m + k];
                    a[col * m + k] = a[piv * m + k];
                    a[piv * m + k] = t;
                }
                det = -det;
            }
            det *= a[col * m + col];
            for (int64_t r = col + 1; r < m; r++) {
                double f = a[r * m + col] / a[col * m + col];
                for (int64_t k = col; k < m; k++)
                    a[r * m + k] -= f * a[col * m + k];
            }
        }
        kern_set_f64(dt, y, b, det);
    }
}
