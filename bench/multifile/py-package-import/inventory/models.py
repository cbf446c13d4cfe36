from dataclasses import dataclass, field

from .util import clamp


@dataclass
class Item:
    sku: str
    name: str
    price: float

    def label(self):
        return f"{self.sku}: {self.name}"


@dataclass
class Stock:
    levels: dict = field(default_factory=dict)

    def add(self, item, count):
        self.levels[item.sku] = self.levels.get(item.sku, 0) + count

    def remove(self, item, count):
        left = self.levels.get(item.sku, 0) - count
        self.levels[item.sku] = clamp(left, 0, 10**9)

    def count(self, item):
        return self.levels.get(item.sku, 0)
