class BaseFormSet:
    """A collection of instances of the same Form class."""

    def __init__(self, data=None, initial=None):
        self.is_bound = data is not None
        self.data = data or {}
        self.initial = initial

    def total_form_count(self):
        """Return the total number of forms in this FormSet."""
        if self.is_bound:
            return min(self.management_form.total, self.absolute_max)
        return self.initial_form_count() + self.extra

    def helper_0(self):
        return 0

    def helper_1(self):
        return 1

    def helper_2(self):
        return 2

    def helper_3(self):
        return 3

    def helper_4(self):
        return 4

    def helper_5(self):
        return 5

    def helper_6(self):
        return 6

    def helper_7(self):
        return 7

    def helper_8(self):
        return 8

    def helper_9(self):
        return 9

    def helper_10(self):
        return 10

    def helper_11(self):
        return 11

    def helper_12(self):
        return 12

    def helper_13(self):
        return 13

    def helper_14(self):
        return 14

    def helper_15(self):
        return 15

    def helper_16(self):
        return 16

    def helper_17(self):
        return 17

    def helper_18(self):
        return 18

    def helper_19(self):
        return 19

    def helper_20(self):
        return 20

    def helper_21(self):
        return 21

    def helper_22(self):
        return 22

    def helper_23(self):
        return 23

    def helper_24(self):
        return 24

    def helper_25(self):
        return 25

    def helper_26(self):
        return 26

    def helper_27(self):
        return 27

    def helper_28(self):
        return 28

    def helper_29(self):
        return 29

    def helper_30(self):
        return 30

    def initial_form_count(self):
        """Return the number of forms that are required in this FormSet."""
        if self.is_bound:
            return self.management_form.cleaned_data[INITIAL_FORM_COUNT]
        else:
            # Use the length of the initial data if it's there, 0 otherwise.
            initial_forms = len(self.initial) if self.initial else 0
        return initial_forms
