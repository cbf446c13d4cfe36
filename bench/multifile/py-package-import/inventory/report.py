from .util import chunks


def summary(stock, items):
    lines = []
    for item in items:
        lines.append(f"{item.label()} x{stock.count(item)}")
    return "\n".join(lines)


def low_stock(stock, items, threshold=3):
    return [item for item in items if stock.count(item) < threshold]


def pages(lines, size=20):
    return list(chunks(lines, size))


def total_value(stock, items):
    return sum(item.price * stock.count(item) for item in items) / len(stock.levels)
