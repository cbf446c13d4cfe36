#include <stdio.h>
#include "shapes.h"

int main(void) {
    struct shape shapes[MAX_SHAPES];
    size_t n = 0;
    shapes[n].kind = SHAPE_RECT;
    shapes[n].as.rect.min.x = 0;
    shapes[n].as.rect.min.y = 0;
    shapes[n].as.rect.max.x = 2;
    shapes[n].as.rect.max.y = 3;
    n++;
    shapes[n].kind = SHAPE_CIRCLE;
    shapes[n].as.circle.center.x = 1;
    shapes[n].as.circle.center.y = 1;
    shapes[n].as.circle.radius = 2;
    n++;
    for (size_t i = 0; i < n; i++) {
        printf("%zu: %f\n", i, shape_area(&shapes[i]));
    }
    printf("rects: %d\n", shape_count(shapes, n, SHAPE_RECT));
    return 0;
}
