from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import x
