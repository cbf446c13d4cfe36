"""Inventory: items, stock levels and reports."""
from . import util
from .models import Item, Stock
from .report import summary, low_stock

__all__ = ["Item", "Stock", "summary", "low_stock"]
VERSION = util.version_string((1, 4, 2))
