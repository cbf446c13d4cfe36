#!/usr/bin/env python3
"""Invoice generation for the shop backend.

Reads the day's orders (embedded below for the nightly self-check), applies the customer's
pricing rules, discounts and taxes, and renders plain-text invoices. Money is kept in integer
cents everywhere except in the discount rules, which are written by the marketing team as
percentages.
"""

from __future__ import annotations

import dataclasses
import decimal
import enum
import json
import sys
from collections import defaultdict
from typing import Dict, Iterable, List, Optional

CURRENCY = "EUR"
VAT_RATES = {"standard": 21, "reduced": 9, "zero": 0}


class Tier(enum.Enum):
    RETAIL = "retail"
    WHOLESALE = "wholesale"
    PARTNER = "partner"


@dataclasses.dataclass
class Product:
    sku: str
    title: str
    unit_cents: int
    vat_class: str = "standard"
    weight_grams: int = 0


@dataclasses.dataclass
class Line:
    product: Product
    quantity: int
    note: str = ""

    @property
    def gross_cents(self) -> int:
        return self.product.unit_cents * self.quantity


@dataclasses.dataclass
class Customer:
    ident: str
    name: str
    tier: Tier
    country: str = "NL"
    # percent off per SKU prefix, e.g. {"BK-": 10}; None means "not negotiated yet"
    discounts: Optional[Dict[str, Optional[float]]] = None


@dataclasses.dataclass
class Order:
    number: str
    customer: Customer
    lines: List[Line]
    shipping_cents: int = 0


CATALOGUE = {
    "BK-1001": Product("BK-1001", "The Art of Reduction (hardcover)", 4250, "reduced", 900),
    "BK-1002": Product("BK-1002", "Delta Debugging in Practice", 3900, "reduced", 650),
    "MG-2001": Product("MG-2001", "Mug \"I minimise\"", 1299, "standard", 350),
    "ST-3001": Product("ST-3001", "Sticker pack (12)", 499, "standard", 40),
    "GC-9000": Product("GC-9000", "Gift card", 2500, "zero", 0),
}

CUSTOMERS_JSON = """
[
  {"ident": "C-17", "name": "Bookshop De Hoek", "tier": "wholesale", "country": "NL",
   "discounts": {"BK-": 15, "MG-": 5}},
  {"ident": "C-23", "name": "A. Jansen", "tier": "retail", "country": "BE", "discounts": null},
  {"ident": "C-31", "name": "Campus Store", "tier": "partner", "country": "NL",
   "discounts": {"BK-": 20, "ST-": null}}
]
"""

ORDERS = [
    ("2024-0412", "C-17", [("BK-1001", 10), ("BK-1002", 6), ("MG-2001", 12)], 1500),
    ("2024-0413", "C-23", [("BK-1002", 1), ("ST-3001", 2)], 495),
    ("2024-0414", "C-31", [("BK-1001", 25), ("ST-3001", 40), ("GC-9000", 3)], 0),
]


class PricingError(Exception):
    """Raised when an order cannot be priced."""


def load_customers(text: str) -> Dict[str, Customer]:
    customers = {}
    for raw in json.loads(text):
        customers[raw["ident"]] = Customer(
            ident=raw["ident"],
            name=raw["name"],
            tier=Tier(raw["tier"]),
            country=raw.get("country", "NL"),
            discounts=raw.get("discounts"),
        )
    return customers


def build_orders(customers: Dict[str, Customer]) -> List[Order]:
    orders = []
    for number, ident, items, shipping in ORDERS:
        try:
            customer = customers[ident]
        except KeyError:
            raise PricingError(f"order {number}: unknown customer {ident!r}") from None
        lines = [Line(CATALOGUE[sku], qty) for sku, qty in items]
        orders.append(Order(number, customer, lines, shipping))
    return orders


def discount_percent(customer: Customer, sku: str) -> float:
    """The best discount for a SKU: the longest matching prefix wins."""
    if not customer.discounts:
        return 0.0
    best_prefix = ""
    percent = 0.0
    for prefix, value in customer.discounts.items():
        if sku.startswith(prefix) and len(prefix) > len(best_prefix):
            best_prefix, percent = prefix, value
    return percent


def tier_bonus(tier: Tier, quantity: int) -> float:
    # wholesale customers get 2% extra from 10 units; partners 5% from 20 units
    if tier is Tier.WHOLESALE and quantity >= 10:
        return 2.0
    if tier is Tier.PARTNER and quantity >= 20:
        return 5.0
    return 0.0


def line_discount_cents(line: Line, customer: Customer) -> int:
    percent = discount_percent(customer, line.product.sku)
    percent += tier_bonus(customer.tier, line.quantity)
    exact = decimal.Decimal(line.gross_cents) * decimal.Decimal(str(percent)) / 100
    return int(exact.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def vat_cents(net_cents: int, vat_class: str, country: str) -> int:
    rate = VAT_RATES[vat_class]
    if country != "NL" and vat_class == "reduced":
        rate = 6  # Belgian reduced rate for books
    return (net_cents * rate + 50) // 100


@dataclasses.dataclass
class Totals:
    net: int = 0
    discount: int = 0
    vat: Dict[int, int] = dataclasses.field(default_factory=lambda: defaultdict(int))
    shipping: int = 0

    @property
    def grand(self) -> int:
        return self.net + sum(self.vat.values()) + self.shipping


def price_order(order: Order) -> Totals:
    totals = Totals(shipping=order.shipping_cents)
    for line in order.lines:
        discount = line_discount_cents(line, order.customer)
        net = line.gross_cents - discount
        totals.net += net
        totals.discount += discount
        rate = VAT_RATES[line.product.vat_class]
        totals.vat[rate] += vat_cents(net, line.product.vat_class, order.customer.country)
    return totals


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{CURRENCY} {cents // 100:,}.{cents % 100:02d}"


def render_invoice(order: Order, totals: Totals) -> str:
    out = [f"INVOICE {order.number}", f"Bill to: {order.customer.name} ({order.customer.ident})", ""]
    for line in order.lines:
        out.append(f"  {line.quantity:>4} x {line.product.title:<36} {money(line.gross_cents):>14}")
    out.append("")
    out.append(f"  {'discount':<43} {money(-totals.discount):>14}")
    out.append(f"  {'net':<43} {money(totals.net):>14}")
    for rate, amount in sorted(totals.vat.items()):
        out.append(f"  {'VAT ' + str(rate) + '%':<43} {money(amount):>14}")
    out.append(f"  {'shipping':<43} {money(totals.shipping):>14}")
    out.append(f"  {'TOTAL':<43} {money(totals.grand):>14}")
    return "\n".join(out)


def shipping_weight(orders: Iterable[Order]) -> int:
    return sum(line.product.weight_grams * line.quantity for order in orders for line in order.lines)


def run(argv: List[str]) -> int:
    customers = load_customers(CUSTOMERS_JSON)
    orders = build_orders(customers)
    grand_total = 0
    for order in orders:
        totals = price_order(order)
        grand_total += totals.grand
        if "--quiet" not in argv:
            print(render_invoice(order, totals))
            print()
    print(f"{len(orders)} invoices, {money(grand_total)}, {shipping_weight(orders) / 1000:.1f} kg")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
