class M:
    def reset(self):
        self.alpha_1 = 0
        self.alpha_2 = 0
        self.alpha_3 = 0
