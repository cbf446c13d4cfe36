def version_string(parts):
    return ".".join(str(p) for p in parts)


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def chunks(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]
