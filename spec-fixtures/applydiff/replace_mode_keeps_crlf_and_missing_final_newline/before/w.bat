@echo off
echo old