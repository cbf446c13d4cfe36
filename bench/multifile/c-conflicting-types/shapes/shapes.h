#ifndef SHAPES_H
#define SHAPES_H

#include <stddef.h>

#define MAX_SHAPES 64
#define SQUARE(x) ((x) * (x))

struct point {
    double x;
    double y;
};

struct rect {
    struct point min;
    struct point max;
};

struct circle {
    struct point center;
    double radius;
};

enum shape_kind { SHAPE_RECT, SHAPE_CIRCLE };

struct shape {
    enum shape_kind kind;
    union {
        struct rect rect;
        struct circle circle;
    } as;
};

double rect_area(const struct rect *r);
double circle_area(const struct circle *c);
double shape_area(const struct shape *s);
int shape_count(const struct shape *shapes, size_t n, enum shape_kind kind);
int scale_shape(struct shape *s, double factor);

#endif
