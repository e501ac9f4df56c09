renamed_function()
renamed_function()
keep()
