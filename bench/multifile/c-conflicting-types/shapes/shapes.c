#include <stdio.h>
#include "shapes.h"

static const double PI = 3.14159265358979;

double rect_area(const struct rect *r) {
    double w = r->max.x - r->min.x;
    double h = r->max.y - r->min.y;
    return w * h;
}

double circle_area(const struct circle *c) {
    return PI * SQUARE(c->radius);
}

double shape_area(const struct shape *s) {
    switch (s->kind) {
    case SHAPE_RECT:
        return rect_area(&s->as.rect);
    case SHAPE_CIRCLE:
        return circle_area(&s->as.circle);
    }
    return 0.0;
}

int shape_count(const struct shape *shapes, size_t n, enum shape_kind kind) {
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        if (shapes[i].kind == kind) {
            count++;
        }
    }
    return count;
}

long scale_shape(struct shape *s, double factor) {
    if (s->kind == SHAPE_RECT) {
        s->as.rect.max.x = s->as.rect.min.x + (s->as.rect.max.x - s->as.rect.min.x) * factor;
        s->as.rect.max.y = s->as.rect.min.y + (s->as.rect.max.y - s->as.rect.min.y) * factor;
    } else {
        s->as.circle.radius *= factor;
    }
    return 0;
}
